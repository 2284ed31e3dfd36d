"""Pure readers of publishers' formats: bytes in, records out."""
