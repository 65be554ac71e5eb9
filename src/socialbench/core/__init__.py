"""What every benchmark uses: seeding, the generation runner, manifests, video writing."""
