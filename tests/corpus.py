"""Where the shared PHH corpus lives: `shared/` beside the repository (as on every machine
and in CI, which clones the repository into another folder with shared/ beside it)."""
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
PHH = SHARED / "phh"
