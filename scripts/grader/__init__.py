"""scripts/grade.py's parts, one job each."""
