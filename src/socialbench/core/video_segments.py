"""H.264 mp4s joined from segments: each run of frames encoded once, muxed into every file that
shows it.

A segment is a run of frames encoded by an encoder of its own, with ``core.video.write_mp4``'s
settings (``configure_h264``): its first frame is a keyframe (IDR) and none of its frames refers
to a frame outside it (x264's GOPs are closed), so segments can be joined in any order. A
joined file is the segments' packets one after another, their timestamps shifted by the frames
before them; it decodes, segment by segment, to exactly the frames ``write_mp4`` gives for each
segment alone (tested). BIB uses it to encode a pair's shared familiarization trials once.

Encoding dominates: joining a file costs ~1 ms. The bytes depend only on the frames, as with
``write_mp4`` (one encoder thread, no macroblock tree).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from socialbench.core.files import atomic_write
from socialbench.core.video import configure_h264


@dataclass(frozen=True)
class EncodedPacket:
    """One compressed frame, with timestamps in frames from its segment's first frame."""

    data: bytes
    pts: int
    dts: int
    duration: int
    keyframe: bool


@dataclass(frozen=True)
class Segment:
    """A run of frames encoded on its own (see the module note)."""

    packets: tuple[EncodedPacket, ...]
    frames: int
    width: int
    height: int
    extradata: bytes  # the encoder's parameter sets; the same for segments of the same settings


def encode_segment(frames: Iterable[np.ndarray], fps: int, *, crf: int = 18,
                   preset: str = "veryfast") -> Segment:
    """Encode RGB ``uint8`` frames (H x W x 3, even sides) as one segment.

    A read-only array yielded again in a row (a held frame: BIB's renderer yields the same
    image while the agent waits) is converted to YUV once; the encoder sees the same pixels, so
    the packets are those of converting it every time (tested).
    """
    import av
    from av.video.reformatter import VideoReformatter

    context = None
    reformatter = VideoReformatter()
    packets: list[EncodedPacket] = []
    last_image: np.ndarray | None = None
    converted = None
    count = 0

    def keep(encoded: list) -> None:
        packets.extend(EncodedPacket(bytes(p), int(p.pts), int(p.dts), int(p.duration or 0),
                                     bool(p.is_keyframe)) for p in encoded)

    for image in frames:
        if context is None:
            height, width = image.shape[:2]
            context = av.CodecContext.create("libx264", "w")
            context.time_base = Fraction(1, fps)
            context.framerate = Fraction(fps)
            # Parameter sets in the file header, as an mp4 stream's encoder has them.
            context.flags |= av.codec.context.Flags.global_header
            configure_h264(context, width, height, crf, preset)
        if image is not last_image or image.flags.writeable or converted is None:
            rgb = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
            # The conversion the encoder would make (PyAV's, on one thread).
            converted = reformatter.reformat(rgb, width, height, context.format, threads=1)
            last_image = image
        converted.pts = count  # the frame number, as write_mp4's encoder numbers frames
        keep(context.encode(converted))
        count += 1
    if context is None:
        return Segment((), 0, 0, 0, b"")
    keep(context.encode())  # flush the delayed (B-) frames
    return Segment(tuple(packets), count, width, height, bytes(context.extradata or b""))


def write_segments_mp4(path: Path, segments: Sequence[Segment], fps: int, *, crf: int = 18,
                       preset: str = "veryfast") -> int:
    """Join the segments, in order, into the mp4 ``path``; return its frame count.

    The segments must come from :func:`encode_segment` with the same size and settings (the
    file has one set of parameter sets; checked). The file appears under its name only when
    complete.
    """
    import av

    shown = [s for s in segments if s.frames]
    if not shown:
        raise ValueError("no frames to write")
    first = shown[0]
    if any((s.width, s.height, s.extradata) != (first.width, first.height, first.extradata)
           for s in shown):
        raise ValueError("segments differ in size or encoder settings; they cannot be joined")
    time_base = Fraction(1, fps)
    # A segment's first packet is decoded ``delay`` frames before it is shown (B-frames; a
    # short segment has less delay): every segment's decoding times are shifted to the
    # largest delay, so they rise from one segment into the next.
    delay = max(-s.packets[0].dts for s in shown)
    offset = 0
    last_dts = None
    with atomic_write(path) as tmp, av.open(str(tmp), mode="w", format="mp4") as container:
        stream = container.add_stream("libx264", rate=Fraction(fps))
        # The stream's encoder is opened (for its parameter sets) but never fed.
        configure_h264(stream.codec_context, first.width, first.height, crf, preset)
        container.start_encoding()
        if bytes(stream.codec_context.extradata or b"") != first.extradata:
            raise ValueError("the segments were encoded with other settings than the file's")
        for segment in shown:
            dts_shift = offset - delay - segment.packets[0].dts
            for encoded in segment.packets:
                dts = encoded.dts + dts_shift
                if last_dts is not None and dts <= last_dts:
                    raise ValueError(f"segment packets decode out of order (dts {dts} after "
                                     f"{last_dts})")
                last_dts = dts
                packet = av.Packet(encoded.data)
                packet.stream = stream
                packet.time_base = time_base
                packet.pts, packet.dts = encoded.pts + offset, dts
                packet.duration = encoded.duration
                packet.is_keyframe = encoded.keyframe
                container.mux(packet)
            offset += segment.frames
    return offset
