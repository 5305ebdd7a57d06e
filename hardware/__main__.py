import sys

from hardware.cli import main

sys.exit(main())
