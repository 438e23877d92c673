# The Relief family's kernels, built as frcli._ext.relief.<name>: _relief (neighbour search
# and accumulation), _reliefe, _multisurf, _ssl_grid; _distance.pxd holds what they share.
