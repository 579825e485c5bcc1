"""Key bindings: Enter continues the input while a bracket is open.

Enter runs the input when its brackets balance. With a ``(`` or ``[`` still
open it starts a new line, indented by the depth, so a long array or call can
be typed over several lines. Two ways out for a stray bracket: Enter on an
empty continuation line runs the input anyway (the parser then points at the
problem), and Esc Enter (or Alt-Enter) always runs it. Ctrl-C cancels.
"""

from __future__ import annotations

from prompt_toolkit.enums import DEFAULT_BUFFER
from prompt_toolkit.filters import has_focus
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from ..lang.brackets import open_depth

INDENT = "    "


def make_key_bindings() -> KeyBindings:
    kb = KeyBindings()
    focused = has_focus(DEFAULT_BUFFER)

    @kb.add("enter", filter=focused)
    def _enter(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        state = buf.complete_state
        if state is not None and state.current_completion is not None:
            buf.apply_completion(state.current_completion)  # Enter picks the completion
            return
        doc = buf.document
        depth = open_depth(doc.text)
        blank_continuation = doc.line_count > 1 and not doc.current_line.strip()
        if depth and doc.is_cursor_at_the_end and not blank_continuation:
            buf.insert_text("\n" + INDENT * depth)
            return
        buf.validate_and_handle()

    @kb.add("escape", "enter", filter=focused)
    def _force(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    return kb
