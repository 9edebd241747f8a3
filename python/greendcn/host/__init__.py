"""Real-Linux host tools: probes and controllers that run on this machine: namespaces, sockets and CPUs."""
