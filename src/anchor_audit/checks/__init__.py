"""What a skill cites, checked at a ref: one module per family of reference kinds."""
