"""`k8slb` and `python -m k8slb`: the command line, with the cyclic garbage collector off
(as `cli.main` turns it off for the run) before anything is imported: importing click and
the command line with it on spent some 15 ms, a fifth of that import, in collections that
free nothing."""

import gc


def main() -> None:
    gc.disable()
    from k8slb.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
