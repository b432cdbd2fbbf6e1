# a comment line, then a good slot, then a bad one
PSEUDO_DMA_TRIGGER q_gradient_in block_id=0
FROBNICATE 1 2 3
