"""The paper's 64-utterance grammar and the (primitive, template, noun) action helpers."""

import pytest

from socialbench.talkitout.grammar import (
    ACTION_NVEC,
    NOUNS,
    TEMPLATES,
    action_from_words,
    check_action,
    utterance,
    words_from_action,
)


def test_grammar_has_64_distinct_utterances_and_round_trips():
    sentences = {utterance(t, n) for t in range(4) for n in range(16)}
    assert len(TEMPLATES) == 4 and len(NOUNS) == 16 and len(sentences) == 64
    for t in range(4):
        for n in range(16):
            assert action_from_words(utterance(t, n)) == (7, t, n)
    assert ACTION_NVEC == (8, 5, 17)


def test_words_to_actions_and_back():
    assert action_from_words("Where is the exit") == (7, 0, 1)
    assert action_from_words("where is the exit?") == (7, 0, 1)
    assert action_from_words("Open sesame", "forward") == (2, 1, 0)
    assert action_from_words(None, "toggle") == (5, 4, 16)
    assert words_from_action((7, 0, 1)) == (None, "Where is the exit")
    assert words_from_action((2, 1, 0)) == ("forward", "Open sesame")
    assert words_from_action((0, 4, 16)) == ("left", None)


def test_half_defined_utterances_are_silent():
    assert utterance(4, 3) is None and utterance(2, 16) is None
    assert words_from_action((7, 4, 3)) == (None, None)


def test_bad_words_and_actions_say_what_is_wrong():
    with pytest.raises(ValueError, match="not in the TalkItOut grammar"):
        action_from_words("Open the pod bay doors")
    with pytest.raises(ValueError, match="unknown primitive"):
        action_from_words(None, "jump")
    with pytest.raises(ValueError, match="noun index 17"):
        check_action((0, 0, 17))
