//! The NEFF file container (spec 004 §1): the 1024-byte header and the gzip-compressed tar package.
