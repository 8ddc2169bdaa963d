"""Output formats for CI systems, one module each; registered in ``gradguard.output.FORMATS``."""
