"""memopt.importers: ONNX and TFLite models into the memopt dialect."""
