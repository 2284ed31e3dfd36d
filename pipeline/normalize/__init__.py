"""Pure normalization: currencies at dated rates, units, time windows."""
