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
    e: list[int] = field(default_factory=list)


@made_at_once
@dataclass(frozen=True)
class Fast:
    a: int
    b: str = "b"
    _: KW_ONLY
    c: tuple[int, ...] = ()
    d: int = field(default=4, init=False)
    e: list[int] = field(default_factory=list)


@given(st.integers(), st.text(), st.lists(st.integers()).map(tuple), st.booleans(), st.booleans())
def test_it_makes_what_the_dataclass_makes(a, b, c, give_b, give_c):
    arguments = (a, b) if give_b else (a,)
    keywords = {"c": c} if give_c else {}
    plain, fast = Plain(*arguments, **keywords), Fast(*arguments, **keywords)
    assert vars(fast) == vars(plain) and list(vars(fast)) == list(vars(plain))
    assert repr(fast) == repr(plain).replace("Plain", "Fast")
    assert fast == Fast(*arguments, **keywords)
    assert Fast(a).e is not Fast(a).e and Fast(a, e=[1]).e == [1]  # a new list each time, as the factory's


def test_its_hash_is_the_dataclass_hash():
    assert hash(Fast(1, "x", c=(2,), e=None)) == hash(Fast(1, "x", c=(2,), e=None))  # type: ignore[arg-type]


def test_it_refuses_what_the_dataclass_refuses():
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'f'"):
        Fast(1, f=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="positional"):
        Fast(1, "b", ())  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Fast(1).a = 2  # type: ignore[misc]


def test_it_refuses_a_class_it_would_get_wrong():
    with pytest.raises(TypeError, match="factory outside __init__"):
        @made_at_once
        @dataclass(frozen=True)
        class Listed:
            items: list[int] = field(default_factory=list, init=False)
    with pytest.raises(TypeError, match="__post_init__"):
        @made_at_once
        @dataclass(frozen=True)
        class Checked:
            a: int

            def __post_init__(self) -> None:
                pass
    with pytest.raises(TypeError, match="slots"):
        @made_at_once
        @dataclass(frozen=True, slots=True)
        class Slotted:
            a: int
    with pytest.raises(TypeError, match="frozen"):
        @made_at_once
        @dataclass
        class Thawed:
            a: int
