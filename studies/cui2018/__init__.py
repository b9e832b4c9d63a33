"""The reproduction of Cui et al. 2018 (ATTOrderNet), Tables 3 and 5: Accidents, Earthquakes
and NIPS (README.md)."""
