"""The human rating study: its database (:mod:`.db`, migrations in ``migrations/``), its design
(:mod:`.design`: which trials, which rater sees which side, attention checks, order), the
rater's session (:mod:`.session`) and the analysis of the ratings (:mod:`.analysis`)."""
