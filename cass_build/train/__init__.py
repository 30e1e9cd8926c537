"""Training the CASS model: data, tokenizer, model, export (the optional ``train`` extra)."""
