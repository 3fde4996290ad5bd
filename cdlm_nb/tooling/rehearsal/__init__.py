"""Stand-ins for the gpu profile's downloads, laid out as the Hugging Face hub serves them, so `cdlm-nb rehearse`
can walk the gpu path offline."""
