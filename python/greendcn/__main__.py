"""`python -m greendcn`: the `greendcn` program (greendcn/launch.py)."""

from greendcn.launch import main

main()
