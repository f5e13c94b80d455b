"""`k8slb` and `python -m k8slb`: the command line, made by the user's k8slb server when
one runs (server.py), else here, with the cyclic garbage collector off (as `cli.run` turns
it off for the run) before anything is imported: importing click and the command line with
it on spent some 15 ms, a fifth of that import, in collections that free nothing."""

import gc
import os
import sys


def _command_line(args: list[str]) -> int:
    """What a server this process starts (K8SLB_SERVER=auto) runs for each caller."""
    from k8slb.interface.cli import served_run

    return served_run(args)


def main() -> None:
    gc.disable()
    from k8slb.interface.server import served

    code = served(sys.argv[1:], _command_line)
    if code is not None:
        os._exit(code)  # the server's run wrote everything; this process wrote nothing
    from k8slb.interface.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
