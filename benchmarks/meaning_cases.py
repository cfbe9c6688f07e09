"""The 19 hand-made meaning-level cases (quantifier, paraphrased negation, antonym, role swap, wrong entity, temporal
order, entailed paraphrase, and claims the context says nothing about), read by the local-LLM benchmark
(``benchmarks/local_llm.py``).

They were written from the meaning of the sentences, not from any model's outputs, and are reported, never tuned to.
None is a one-edit copy of its context (the test checks), so each contradiction needs a reader of meaning.
"""

from __future__ import annotations

from rt4chart.types import Label

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

#: (kind, context, claim, label)
CASES = [
    ("quantifier", "Only members of the board may vote on the annual budget.",
     "Every employee of the company may vote on the annual budget.", C),
    ("quantifier", "Three of the twelve water samples contained traces of lead; the other nine were clean.",
     "All of the water samples contained lead.", C),
    ("quantifier", "None of the passengers on the ferry were injured in the collision.",
     "Several passengers were hurt when the ferry collided.", C),
    ("paraphrased negation", "The company declined to comment on the leaked report.",
     "The company commented publicly on the leaked report.", C),
    ("paraphrased negation", "Applicants must present a valid passport at the interview.",
     "A passport is not needed for the interview.", C),
    ("paraphrased negation", "The bridge was closed to all traffic for the whole of 2021.",
     "Cars were able to cross the bridge throughout 2021.", C),
    ("antonym", "The lake is shallow: it is rarely deeper than two metres.",
     "The lake is extremely deep.", C),
    ("antonym", "Sales of the new phone rose sharply in the second quarter.",
     "The new phone sold worse in the second quarter.", C),
    ("role swap", "The striker was fouled by the goalkeeper inside the penalty area.",
     "The goalkeeper was fouled by the striker.", C),
    ("role swap", "Maria hired Tom as her personal assistant in 2019.",
     "Tom hired Maria as his assistant.", C),
    ("wrong entity", "The peace treaty was signed in Vienna by the foreign ministers of both countries.",
     "The foreign ministers signed the peace treaty in Geneva.", C),
    ("wrong entity", "Jane Eyre was written by Charlotte Brontë and published in 1847.",
     "Emily Brontë is the author of Jane Eyre.", C),
    ("temporal order", "She graduated from university in 2010 and joined the bank two years later.",
     "She joined the bank before she graduated from university.", C),
    ("temporal order", "The storm reached the coast only after the evacuation of the town had been completed.",
     "The town was evacuated after the storm reached the coast.", C),
    ("entailed paraphrase", "The museum opens its doors at 9 a.m. and closes at 5 p.m. every day of the week.",
     "The museum is open daily from nine in the morning.", E),
    ("entailed paraphrase", "The committee approved the proposal unanimously on Friday.",
     "Every member of the committee voted for the proposal.", E),
    ("entailed paraphrase", "Dr. Lee, a cardiologist, has worked at the city hospital since 2005.",
     "Dr. Lee is a heart doctor at the city hospital.", E),
    ("baseless", "The museum opens its doors at 9 a.m. and closes at 5 p.m. every day of the week.",
     "The museum has a rooftop cafe with views of the river.", N),
    ("baseless", "Dr. Lee, a cardiologist, has worked at the city hospital since 2005.",
     "Dr. Lee studied medicine in Edinburgh.", N),
]
