//! kelf -> kbin (spec 004 §2): the JSON manifests of a NEFF and the runtime's kbin model.
