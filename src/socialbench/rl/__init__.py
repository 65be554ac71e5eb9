"""Learning agents for TalkItOut: the MH-BabyAI model, recurrent PPO, exploration bonus, studies."""
