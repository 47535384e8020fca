"""torch-sync-trace: attributes the GPU idle gaps of LibTorch (Kineto) traces to the host calls that waited."""
