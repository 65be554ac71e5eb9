"""``socialbench run``'s sections, one module per benchmark."""
