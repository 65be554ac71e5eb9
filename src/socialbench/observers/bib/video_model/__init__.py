"""The BIB paper's video baseline (section 5, appendix B.2): ``--observer video``.

:mod:`.frames` (episodes as 3-fps 64 x 64 frames, drawn or decoded), :mod:`.frame_cache`
(those frames prepared once, in shards), :mod:`.network` (residual CNN, BiLSTM, U-Net),
:mod:`.training` (the MSE training loop, resumable) and :mod:`.observer` (surprise,
fit, checkpoints). ``docs/bib_baselines.md`` has the commands and the results.
"""
