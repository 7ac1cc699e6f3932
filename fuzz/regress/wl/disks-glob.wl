name = a
bench = b
disks = virtio-blk *
