"""``python -m certify.cli``: the same as the ``certify`` command."""
from . import main

if __name__ == "__main__":  # importing this module (pkgutil.walk_packages) runs nothing
    main()
