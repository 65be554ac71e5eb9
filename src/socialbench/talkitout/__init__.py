"""TalkItOut (SocialAI 0.1): move and talk to scripted NPCs to find the exit."""
