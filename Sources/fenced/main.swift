// Placeholder while the daemon is written.
print("fenced")
