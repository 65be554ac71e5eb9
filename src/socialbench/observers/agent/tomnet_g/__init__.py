"""ToMnet-G (AGENT paper, Section 4.2): a graph network over the entities, a character embedding
from the familiarization videos and a recurrent predictor of the agent's path."""
