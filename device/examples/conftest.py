# These bench scripts open the real camera when imported: keep pytest (and --doctest-modules) away.
collect_ignore_glob = ["*.py"]
