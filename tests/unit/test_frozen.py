"""domain.frozen.made_at_once: the fast __init__ makes the object the dataclass's would."""
from __future__ import annotations

from dataclasses import KW_ONLY, FrozenInstanceError, dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.frozen import made_at_once


@dataclass(frozen=True)
class Plain:
    a: int
    b: str = "b"
    _: KW_ONLY
    c: tuple[int, ...] = ()
    d: int = field(default=4, init=False)


@made_at_once
@dataclass(frozen=True)
class Fast:
    a: int
    b: str = "b"
    _: KW_ONLY
    c: tuple[int, ...] = ()
    d: int = field(default=4, init=False)


@given(st.integers(), st.text(), st.lists(st.integers()).map(tuple), st.booleans(), st.booleans())
def test_it_makes_what_the_dataclass_makes(a, b, c, give_b, give_c):
    arguments = (a, b) if give_b else (a,)
    keywords = {"c": c} if give_c else {}
    plain, fast = Plain(*arguments, **keywords), Fast(*arguments, **keywords)
    assert vars(fast) == vars(plain) and list(vars(fast)) == list(vars(plain))
    assert repr(fast) == repr(plain).replace("Plain", "Fast")
    assert fast == Fast(*arguments, **keywords) and hash(fast) == hash(Fast(*arguments, **keywords))


def test_it_refuses_what_the_dataclass_refuses():
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'e'"):
        Fast(1, e=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        Fast(1, "b", ())  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Fast(1).a = 2  # type: ignore[misc]


def test_it_refuses_a_class_it_would_get_wrong():
    with pytest.raises(TypeError, match="default factory"):
        @made_at_once
        @dataclass(frozen=True)
        class Listed:
            items: list[int] = field(default_factory=list)
    with pytest.raises(TypeError, match="__post_init__"):
        @made_at_once
        @dataclass(frozen=True)
        class Checked:
            a: int

            def __post_init__(self) -> None:
                pass
    with pytest.raises(TypeError, match="frozen"):
        @made_at_once
        @dataclass
        class Thawed:
            a: int
