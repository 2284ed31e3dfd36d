"""Pure readers of publishers' formats: bytes in, records out, plus what could not be read."""
