"""gradcli.record: the value classes that stand in for dataclasses."""

from __future__ import annotations

from typing import ClassVar

import pytest

from gradcli.record import Record, factory, fields


class Point(Record):
    x: float
    y: float = 0.0
    label: str = ""
    _uncompared = ("label",)
    dims: ClassVar[int] = 2

    @property
    def norm(self) -> float:
        return (self.x**2 + self.y**2) ** 0.5


class Bag(Record, mutable=True):
    name: str
    items: list = factory(list)


def test_fields_come_from_annotations_in_order() -> None:
    assert fields(Point) == ("x", "y", "label")
    assert Point.dims == 2 and "dims" not in fields(Point)
    assert Point.__slots__ == ("x", "y", "label")


def test_positional_keyword_and_default_arguments() -> None:
    assert (Point(3, 4).x, Point(3, 4).y, Point(3, 4).label) == (3, 4, "")
    p = Point(1, label="a")
    assert (p.x, p.y, p.label) == (1, 0.0, "a")
    assert Point(3, 4).norm == 5.0


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((), {}, "needs the field 'x'"),
        ((1, 2, "a", 4), {}, "takes 3 fields, got 4"),
        ((1,), {"z": 2}, "unexpected field 'z'"),
        ((1,), {"x": 2}, "repeated field 'x'"),
    ],
)
def test_bad_arguments_are_type_errors(args, kwargs, message) -> None:
    with pytest.raises(TypeError, match=message):
        Point(*args, **kwargs)


def test_frozen_records_refuse_assignment_and_have_no_dict() -> None:
    p = Point(1, 2)
    with pytest.raises(AttributeError, match="immutable"):
        p.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.x
    assert not hasattr(p, "__dict__")


def test_equality_and_hash_skip_uncompared_fields() -> None:
    assert Point(1, 2, "a") == Point(1, 2, "b")
    assert hash(Point(1, 2, "a")) == hash(Point(1, 2, "b"))
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != (1, 2)


def test_repr_shows_every_field() -> None:
    assert repr(Point(1, 2, "a")) == "Point(x=1, y=2, label='a')"


def test_mutable_records_assign_get_fresh_factory_defaults_and_are_unhashable() -> None:
    a, b = Bag("a"), Bag("b")
    a.items.append(1)
    assert b.items == []
    a.name = "c"
    assert a.name == "c" and a == Bag("c", [1])
    with pytest.raises(TypeError):
        hash(a)


def test_a_field_without_default_cannot_follow_one_with() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(Record):
            a: int = 0
            b: int


def test_subclasses_extend_their_bases_fields() -> None:
    class Point3(Point):
        z: float = 0.0

    assert fields(Point3) == ("x", "y", "label", "z")
    assert Point3(1, 2, "", 3).z == 3


def test_a_field_declared_again_takes_a_new_default_in_its_place() -> None:
    class Labelled(Point):
        label: str = "p"
        z: float = 0.0

    assert fields(Labelled) == ("x", "y", "label", "z")
    assert Labelled(1, 2).label == "p" and Point(1, 2).label == ""
    assert Labelled(1, 2, "q", 3).label == "q"


def test_render_options_are_the_eval_options_with_digits() -> None:
    # one list of flags, and one rule for "derivatives wanted"
    from gradcli.asked import EvalOptions
    from gradcli.render.plain import RenderOptions

    assert set(fields(EvalOptions)) | {"digits"} == set(fields(RenderOptions))
    for asked in (EvalOptions(), EvalOptions(order=0), EvalOptions(order=2),
                  EvalOptions(series=0), EvalOptions(check=True), EvalOptions(grad=True)):
        shown = RenderOptions.of(asked, 4)
        assert shown.wants_wrt == asked.wants_derivatives
        assert shown.order == (asked.order or 0) and shown.digits == 4
