"""The MH-BabyAI model: the spec's architecture, its Appendix B variants, and the exact
shortcuts the trainer takes (per-step BatchNorm on a joined batch, distinct dialogues encoded
once)."""

import pytest
import torch

from socialbench.rl.dialogue import DialogueTable, Listener
from socialbench.rl.model import (
    EMBED,
    NA_TOKEN,
    GroupedBatchNorm2d,
    MHBabyAI,
    ModelConfig,
)
from socialbench.talkitout.vocabulary import encode


def images(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 12, (n, 7, 7, 3), generator=g, dtype=torch.uint8)


def test_the_paper_architecture():
    model = MHBabyAI()
    convs = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    # Two image convolutions and two FiLM blocks of two: 3x3, 128 channels, padding 1.
    assert len(convs) == 6
    assert all(c.kernel_size == (3, 3) and c.out_channels == EMBED and c.padding == (1, 1)
               for c in convs)
    assert isinstance(model.text_rnn, torch.nn.GRU) and model.text_rnn.hidden_size == EMBED
    assert isinstance(model.lstm, torch.nn.LSTMCell) and model.lstm.hidden_size == EMBED
    sizes = {name: head[-1].out_features for name, head in model.heads.items()}
    assert sizes == {"primitive": 8, "speak": 2, "template": 4, "noun": 16}
    assert all(head[0].out_features == 64 and isinstance(head[1], torch.nn.Tanh)
               for head in [*model.heads.values(), model.critic])


def test_deaf_has_no_dialogue_input():
    model = MHBabyAI(ModelConfig(deaf=True))
    assert not hasattr(model, "text_rnn") and not hasattr(model, "films")
    logits, value, memory = model(images(4), None, torch.zeros(4, 256))
    assert logits["primitive"].shape == (4, 8) and value.shape == (4,)


@pytest.mark.parametrize("config", [
    ModelConfig(), ModelConfig(dialogue="current"), ModelConfig(memory=False),
    ModelConfig(text="bigru"), ModelConfig(text="attgru"), ModelConfig(vision="bow"),
    ModelConfig(channels=4),
])
def test_every_variant_steps(config):
    model = MHBabyAI(config)
    table = DialogueTable()
    rows = torch.tensor([table.add(()), table.add(tuple(encode("Gandalf: Ask John.\n")))])
    tokens, lengths = table.padded()
    encoded = model.encode_dialogue(tokens, lengths)
    image = torch.randint(0, 12, (2, 7, 7, config.channels), dtype=torch.uint8)
    memory = torch.zeros(2, model.memory_size)
    logits, value, new_memory = model(image, encoded[rows], memory, lengths[rows])
    assert {k: v.shape[1] for k, v in logits.items()} == {
        "primitive": 8, "speak": 2, "template": 4, "noun": 16}
    assert new_memory.shape == memory.shape


def test_bad_configs_are_refused():
    with pytest.raises(ValueError, match="text"):
        ModelConfig(text="lstm")
    with pytest.raises(ValueError, match="attgru"):
        ModelConfig(text="attgru", memory=False)


def test_empty_history_encodes_as_the_initial_state():
    model = MHBabyAI()
    tokens, lengths = DialogueTable().padded()
    assert torch.equal(model.encode_dialogue(tokens, lengths), torch.zeros(1, EMBED))


def test_padding_does_not_change_a_history_encoding():
    model = MHBabyAI()
    short = tuple(encode("Gandalf: Ask John.\n"))
    long = short + tuple(encode("John: go to the red door\n"))
    alone = DialogueTable()
    alone.add(short)
    both = DialogueTable()
    both.add(short)
    both.add(long)
    a = model.encode_dialogue(*alone.padded())[1]
    b = model.encode_dialogue(*both.padded())[1]
    torch.testing.assert_close(a, b)


def test_grouped_batch_norm_equals_one_call_per_group():
    torch.manual_seed(0)
    grouped, single = GroupedBatchNorm2d(8), torch.nn.BatchNorm2d(8)
    single.load_state_dict(grouped.state_dict())
    x = torch.randn(30, 8, 7, 7)
    grouped.groups = 3
    joined = grouped(x)
    separate = torch.cat([single(part) for part in x.chunk(3)])
    torch.testing.assert_close(joined, separate)
    torch.testing.assert_close(grouped.running_mean, single.running_mean)
    torch.testing.assert_close(grouped.running_var, single.running_var)


def test_listener_history_and_current_dialogue():
    heard = torch.zeros(2, 15, dtype=torch.uint8).numpy()
    wizard = encode("Gandalf: Ask John.\n")
    heard[0, :3] = wizard
    history, current = Listener(2, "history"), Listener(2, "current")
    for listener in (history, current):
        listener.hear(heard)
    assert history.inputs == [tuple(wizard), ()]
    assert current.inputs == [tuple(wizard), (NA_TOKEN,)]
    silence = heard * 0
    history.hear(silence)
    current.hear(silence)
    assert history.inputs[0] == tuple(wizard)  # the history keeps what was heard
    assert current.inputs[0] == (NA_TOKEN,)  # the current dialogue forgets it
    history.forget(0)
    assert history.inputs[0] == ()
