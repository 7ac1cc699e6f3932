name = a
bench = b
matrix.a* = 1
