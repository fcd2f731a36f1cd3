enum DaemonPlaceholder {}
