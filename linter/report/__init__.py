"""Output formats: each module turns a run's result into text for one audience."""
