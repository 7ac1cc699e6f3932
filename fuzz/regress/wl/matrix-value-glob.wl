name = a
bench = b
matrix.x = 1 *
