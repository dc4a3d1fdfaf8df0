"""Background rebuilds through Django's tasks framework."""
