"""Where the shared PHH corpus lives: `shared/` beside the repository (as on the developers'
machines and in CI, which clones the repository into another folder with a copy of
shared/ beside it); CARDROOM_SHARED_DIR points elsewhere."""
import os
from pathlib import Path

SHARED = Path(os.environ.get("CARDROOM_SHARED_DIR") or Path(__file__).resolve().parents[2] / "shared")
PHH = SHARED / "phh"
