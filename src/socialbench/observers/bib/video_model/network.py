"""The BIB paper's video model (section 5, appendix B.2, Figure 9; after ToMnet):

* **Frame encoder**: a residual CNN applied to every 64 x 64 frame of a familiarization trial
  (paper: "a residual convolutional network with 4 blocks, each with two" convolutions).
* **Trial encoder**: a bidirectional LSTM over a trial's frame embeddings; its last outputs give
  the trial's 16-d agent-characteristic embedding (paper: 16). The 8 familiarization
  embeddings are averaged.
* **Predictor**: the embedding tiled to 16 x 64 x 64, concatenated with a test frame (3 + 16 =
  19 channels), a U-Net predicts the next frame (3 x 64 x 64).

Sizes the paper leaves open are :class:`VideoConfig` fields, marked "ours". No batch norm
(ours): the original U-Net has none, and it keeps training and evaluation the same function.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

from socialbench.core.errors import UserError
from socialbench.observers.bib.video_model.frame_source import check_source
from socialbench.observers.bib.video_model.frames import SAMPLE_FPS, SIDE

EMBEDDING_DIM = 16  # bib paper, B.2: "a vector of size 64 x 64 x 16"
INITS = ("he", "torch")


@dataclass(frozen=True)
class VideoConfig:
    """The network's shape and its input sampling (saved in every checkpoint)."""

    embedding_dim: int = EMBEDDING_DIM
    encoder_widths: tuple[int, ...] = (16, 32, 32, 32)  # ours: 4 residual blocks (paper: 4)
    stem_width: int = 8  # ours
    frame_dim: int = 64  # ours: size of a frame's embedding fed to the LSTM
    lstm_hidden: int = 32  # ours: per direction
    unet_widths: tuple[int, ...] = (8, 16, 32, 64)  # ours: 4 levels, the bottleneck at 4 x 4
    fps: float = SAMPLE_FPS
    side: int = SIDE
    frames: str = "2d"  # the videos it sees: 2d or 3d (.frame_source; Table 1's 3D column)
    init: str = "he"  # convolutions' initial weights: "he" (U-Net paper) or "torch" (default)

    def __post_init__(self) -> None:
        check_source(self.frames)
        if self.init not in INITS:
            raise UserError(f"init must be one of {', '.join(INITS)}, got {self.init!r}")
        if self.side % (2 ** len(self.unet_widths)) or self.side % 16:
            raise UserError(f"frame side {self.side} must be divisible by 16 and by "
                            f"2 ** (U-Net levels)")
        if len(self.encoder_widths) != 4:
            raise UserError("the frame encoder has 4 residual blocks (bib paper)")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["frames"] == "2d":  # as before 3D existed: 2D checkpoints and resume keys stay
            del data["frames"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VideoConfig:
        data = dict(data)
        for key in ("encoder_widths", "unet_widths"):
            data[key] = tuple(data[key])
        return cls(**data)


class ResidualBlock(nn.Module):
    """Two 3 x 3 convolutions and a skip (a strided 1 x 1 projection when the shape changes).

    The strided projection is computed as "keep every ``stride``-th pixel, then a 1 x 1
    convolution": the same function and parameters as ``Conv2d(..., 1, stride=stride)``, but
    not oneDNN's strided 1 x 1 backward, which corrupts the heap on channels-last input with
    more than one CPU thread and an odd batch (torch 2.13 CPU; tests/observers/
    test_bib_video_model_threads.py reproduces it)."""

    def __init__(self, width_in: int, width_out: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(width_in, width_out, 3, stride=stride, padding=1), nn.ReLU(),
            nn.Conv2d(width_out, width_out, 3, padding=1))
        self.stride = stride
        self.skip = (nn.Identity() if stride == 1 and width_in == width_out
                     else nn.Conv2d(width_in, width_out, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        kept = x[:, :, ::self.stride, ::self.stride] if self.stride > 1 else x
        return torch.relu(self.skip(kept) + self.body(x))


class FrameEncoder(nn.Module):
    """``(N, 3, 64, 64)`` frames -> ``(N, frame_dim)``: a strided stem (64 -> 32), then 4
    residual blocks, the first three halving the resolution (32 -> 4; cheap: the encoder sees
    every familiarization frame, ~8x as many as the U-Net)."""

    def __init__(self, config: VideoConfig) -> None:
        super().__init__()
        widths = config.encoder_widths
        self.stem = nn.Sequential(nn.Conv2d(3, config.stem_width, 3, stride=2, padding=1),
                                  nn.ReLU())
        blocks, width = [], config.stem_width
        for i, out in enumerate(widths):
            blocks.append(ResidualBlock(width, out, stride=2 if i < 3 else 1))
            width = out
        self.blocks = nn.Sequential(*blocks)
        cells = (config.side // 16) ** 2
        self.head = nn.Linear(width * cells, config.frame_dim)

    def forward(self, frames: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(self.stem(frames)).flatten(1))


class TrialEncoder(nn.Module):
    """Frame embeddings of trials -> one embedding per trial: a BiLSTM, then a linear map of its
    two directions' last outputs (forward after the last frame, backward after the first)."""

    def __init__(self, config: VideoConfig) -> None:
        super().__init__()
        self.lstm = nn.LSTM(config.frame_dim, config.lstm_hidden, batch_first=True,
                            bidirectional=True)
        self.out = nn.Linear(2 * config.lstm_hidden, config.embedding_dim)

    def forward(self, padded: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``padded (T, L, D)``, ``lengths (T,)`` (each >= 1) -> ``(T, embedding_dim)``."""
        packed = pack_padded_sequence(padded, lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        _, (hidden, _) = self.lstm(packed)  # hidden: (2 directions, T, H)
        return self.out(torch.cat([hidden[0], hidden[1]], dim=1))


def _double_conv(width_in: int, width_out: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(width_in, width_out, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(width_out, width_out, 3, padding=1), nn.ReLU())


class UNet(nn.Module):
    """``(N, 3 + E, 64, 64)`` -> ``(N, 3, 64, 64)`` (Ronneberger et al. 2015: double 3 x 3
    convolutions, max-pool down, transposed-convolution up, skips). The last layer starts at
    zero: used as a change to add to the input frame, an untrained U-Net predicts no motion."""

    def __init__(self, in_channels: int, widths: tuple[int, ...]) -> None:
        super().__init__()
        self.down = nn.ModuleList()
        width = in_channels
        for out in widths:
            self.down.append(_double_conv(width, out))
            width = out
        self.bottom = _double_conv(width, width)
        self.up = nn.ModuleList()
        self.merge = nn.ModuleList()
        for out in reversed(widths):
            self.up.append(nn.ConvTranspose2d(width, out, 2, stride=2))
            self.merge.append(_double_conv(2 * out, out))
            width = out
        self.out = nn.Conv2d(width, 3, 1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for layer in self.down:
            x = layer(x)
            skips.append(x)
            x = nn.functional.max_pool2d(x, 2)
        x = self.bottom(x)
        for up, merge, skip in zip(self.up, self.merge, reversed(skips), strict=True):
            x = merge(torch.cat([up(x), skip], dim=1))
        return self.out(x)


def he_init(net: nn.Module, keep: nn.Module) -> None:
    """Every convolution but ``keep`` (the U-Net's zero-initialised output): He et al.'s
    normal weights (std sqrt(2 / fan-in)) and zero biases, as Ronneberger et al. initialise the
    U-Net. Ours by default: PyTorch's default (uniform, std sqrt(1 / (3 fan-in))) shrinks the
    signal about tenfold per double convolution here, and early updates barely move the
    prediction."""
    for module in net.modules():
        if isinstance(module, nn.Conv2d | nn.ConvTranspose2d) and module is not keep:
            nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            if module.bias is not None:
                nn.init.zeros_(module.bias)


class VideoNet(nn.Module):
    """Familiarization frames -> agent embedding; (test frame, embedding) -> next frame."""

    def __init__(self, config: VideoConfig) -> None:
        super().__init__()
        self.config = config
        self.frames = FrameEncoder(config)
        self.trials = TrialEncoder(config)
        self.predictor = UNet(3 + config.embedding_dim, config.unet_widths)
        if config.init == "he":
            he_init(self, keep=self.predictor.out)

    def characteristic(self, fam_frames: torch.Tensor, fam_counts: torch.Tensor) -> torch.Tensor:
        """``fam_frames (F, 3, H, W)``: every episode's familiarization frames in order;
        ``fam_counts (B, K)``: frames per trial -> the mean trial embedding ``(B, E)``."""
        b, k = fam_counts.shape
        lengths = fam_counts.reshape(-1)
        if bool((lengths < 1).any()):
            raise UserError("a familiarization trial without frames")
        embedded = self.frames(fam_frames)
        trials = torch.split(embedded, lengths.tolist())
        padded = nn.utils.rnn.pad_sequence(list(trials), batch_first=True)
        return self.trials(padded, lengths).reshape(b, k, -1).mean(dim=1)

    def predict(self, frames: torch.Tensor, embedding: torch.Tensor) -> torch.Tensor:
        """``frames (S, 3, H, W)`` and each one's episode embedding ``(S, E)`` -> next frames:
        the input frame plus the U-Net's predicted change (ours: the paper's U-Net predicts
        the next frame; with a change the copy of the input is free and training goes to the
        motion, which matters at our reduced scale)."""
        s, _, h, w = frames.shape
        tiled = embedding[:, :, None, None].expand(s, embedding.shape[1], h, w)
        return frames + self.predictor(torch.cat([frames, tiled], dim=1))

    def forward(self, fam_frames: torch.Tensor, fam_counts: torch.Tensor,
                test_frames: torch.Tensor, owner: torch.Tensor) -> torch.Tensor:
        """Next-frame predictions for ``test_frames (S, 3, H, W)``; ``owner (S,)``: the episode
        (row of ``fam_counts``) each test frame belongs to."""
        character = self.characteristic(fam_frames, fam_counts)
        return self.predict(test_frames, character[owner])
