"""torch-sync: finds host-device synchronizations in LibTorch code (the Python tools around the checks)."""
