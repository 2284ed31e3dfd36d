"""Pure normalizers: currencies, units, price tiers, accelerator names."""
