//! The question vocabulary: request, answer and error types, validation, the model-facing schema.
