"""The evidence set: does the FIRST evidence sentence shown for a claim name the context sentence that decided it?

Each record is a short everyday document of 4 to 6 sentences (a product page, an HR policy, a medicine leaflet, a
timetable, school rules, a news item, ...) and an answer of 1 to 4 sentences, each a single claim in an assistant's
own words. For every claim the record gives its expected label and ``sentence``: the index, in
``split_sentences(context)``, of the context sentence that decides it (for an entailed claim the one that carries its
content words and numbers, for a contradicted claim the one that contradicts it, None for a baseless claim).

The deciding sentence is never the context's first sentence, and the other sentences are distractors that share
words with the claim (the product's name in a heading, a neighbouring rule about another age group or another plan,
a nearby time or amount), so a judge that shows the first or the most word-overlapping sentence is caught out.

The records were written by hand from the meaning of the sentences, before the evidence-order change of issue 63,
not from any judge's or model's output, and they are never tuned to: they measure, they do not train.
``tests/benchmarks/test_evidence_cases.py`` checks their shape only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from rt4chart.types import Label

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS


@dataclass(frozen=True)
class ExpectedClaim:
    """One answer sentence (an exact substring of the answer), its expected label and the index of the deciding
    context sentence in ``split_sentences(context)`` (None exactly when the claim is baseless)."""

    text: str
    label: Label
    sentence: Optional[int]


@dataclass(frozen=True)
class EvidenceCase:
    """One record: a context, an optional question, an answer and its claims in answer order."""

    id: str
    context: str
    question: Optional[str]
    answer: str
    claims: tuple[ExpectedClaim, ...]


def _case(id: str, context: str, question: Optional[str], *claims: tuple[str, Label, Optional[int]]) -> EvidenceCase:
    """A record whose answer is its claims' texts joined by single spaces."""
    expected = tuple(ExpectedClaim(text, label, sentence) for text, label, sentence in claims)
    return EvidenceCase(id, context, question, " ".join(c.text for c in expected), expected)


RECORDS: tuple[EvidenceCase, ...] = (
    _case(
        "ev-01",
        "Nimbus Q7 noise-cancelling headphones. The headphones weigh 250 grams and fold flat for travel. A full charge "
        "takes two hours over USB-C. On one charge they play music for up to 40 hours. The carry case is sold "
        "separately.",
        "How long does the Nimbus Q7 battery last, and how fast does it charge?",
        ("The Nimbus Q7 runs for up to 40 hours between charges.", E, 3),
        ("Recharging it fully takes about three hours.", C, 2),
        ("A carry case comes in the box.", C, 4),
    ),
    _case(
        "ev-02",
        "Brightwell Ltd staff handbook, section 4. Employees may work from home up to two days a week with their "
        "manager's approval. Full-time employees receive 25 days of paid holiday a year. Holiday requests must be "
        "submitted at least two weeks in advance. Unused holiday days cannot be carried over into the next year.",
        "What are Brightwell's rules on holidays and working from home?",
        ("Full-time staff get 25 paid holiday days each year.", E, 2),
        ("Leftover holiday days can be moved into the following year.", C, 4),
        ("Working from home is allowed on up to three days a week.", C, 1),
        ("The company pays for home office equipment.", N, None),
    ),
    _case(
        "ev-03",
        "Feverol 500 mg tablets relieve pain and fever. Adults and teenagers over 16 may take one or two tablets every "
        "six hours. Do not take more than eight tablets in 24 hours. Feverol should not be given to children under 16 "
        "without a doctor's advice. Store the tablets below 25 degrees Celsius.",
        "Can my 10-year-old take Feverol?",
        ("Children younger than 16 should only take Feverol if a doctor advises it.", E, 3),
        ("No more than eight tablets should be taken in a day.", E, 2),
        ("Adults can take up to three tablets at a time.", C, 1),
        ("Feverol is safe to take with alcohol.", N, None),
    ),
    _case(
        "ev-04",
        "Timetable for bus line 14, Harbour to University, weekdays. The first bus leaves Harbour Square at 5:48. "
        "Buses run every 12 minutes until 20:00. After 20:00 they run every 30 minutes. The last bus leaves Harbour "
        "Square at 23:18. On weekends, line 14 runs every 20 minutes.",
        "When does the line 14 bus run on weekdays?",
        ("The last line 14 bus from Harbour Square departs at 23:18.", E, 4),
        ("The first weekday bus leaves at 06:48.", C, 1),
        ("In the evening after eight, a bus comes every half hour.", E, 3),
    ),
    _case(
        "ev-05",
        "Ashgrove Secondary School rules for pupils. Pupils must arrive by 8:40 each morning. Mobile phones must be "
        "switched off and kept in lockers during lessons. Pupils in Year 11 may leave the site at lunchtime. Pupils "
        "in Years 7 to 10 must stay on the site at lunchtime. Uniform must be worn on all school trips.",
        "Can my son in Year 9 go out at lunchtime?",
        ("Year 9 pupils are allowed to leave school at lunchtime.", C, 4),
        ("Phones have to be stored in lockers during lessons.", E, 2),
        ("Pupils must wear their uniform on school trips.", E, 5),
        ("The school runs a breakfast club from 7:30.", N, None),
    ),
    _case(
        "ev-06",
        "Local news, Tuesday. The Corran Bridge will close for repairs from 3 March. The closure is expected to last "
        "six weeks. Drivers will be diverted via the ring road. A free shuttle bus will carry pedestrians across the "
        "river during the works. The council said the repairs will cost 2.4 million pounds.",
        "What is happening to the Corran Bridge?",
        ("The bridge repairs should take about six weeks.", E, 2),
        ("The works will cost 4.2 million pounds.", C, 5),
        ("Pedestrians will be able to use a free shuttle bus.", E, 4),
        ("The bridge will reopen in time for the summer festival.", N, None),
    ),
    _case(
        "ev-07",
        "Brio 300 espresso machine. The Brio 300 has a 1.8-litre water tank and a 15-bar pump. Its steam wand froths "
        "milk for cappuccinos. The machine switches itself off after 20 minutes without use. It comes with a two-year "
        "warranty, extendable to five years after registration.",
        None,
        ("The Brio 300 turns off automatically after 20 idle minutes.", E, 3),
        ("Its water tank holds 1.5 litres.", C, 1),
        ("Registering the machine extends the warranty to five years.", E, 4),
        ("The Brio 300 can also grind coffee beans.", N, None),
    ),
    _case(
        "ev-08",
        "Peak Fitness membership terms. Members can use the gym from 6:00 to 22:00 on weekdays. At weekends the gym "
        "opens at 8:00 and closes at 20:00. Swimming pool access is included only in the Premium plan. The Basic plan "
        "costs 29 euros a month. The Premium plan costs 45 euros a month.",
        "What does Peak Fitness cost and when is it open?",
        ("At weekends the gym closes at 22:00.", C, 2),
        ("The Premium plan is 45 euros per month.", E, 5),
        ("Basic members can use the swimming pool.", C, 3),
    ),
    _case(
        "ev-09",
        "Parental leave policy at Quorra Systems. All employees are entitled to the statutory minimum of parental "
        "leave. Birth mothers receive 26 weeks of fully paid maternity leave. Partners receive 4 weeks of fully paid "
        "leave, to be taken within the first year. Employees returning from leave may work part-time for up to three "
        "months.",
        "How much paid leave do new parents get at Quorra?",
        ("Partners get four weeks of paid leave.", E, 3),
        ("Birth mothers are paid in full for 16 weeks.", C, 2),
        ("Quorra offers a childcare voucher scheme.", N, None),
    ),
    _case(
        "ev-10",
        "Flight SK 1427 from Oslo to Berlin, 14 June. The flight was scheduled to depart at 08:12. It is now delayed "
        "and will depart at 09:40 from gate C7. Passengers with connecting flights should speak to staff at the "
        "transfer desk. Meal vouchers are available at the information desk.",
        "Is my flight to Berlin on time?",
        ("Flight SK 1427 will now leave at 09:40.", E, 2),
        ("Its original departure time was 06:12.", C, 1),
        ("The flight departs from gate C9.", C, 2),
        ("Passengers can collect meal vouchers at the information desk.", E, 4),
    ),
    _case(
        "ev-11",
        "Amoxil-R capsules, 250 mg. Amoxil-R is an antibiotic used to treat bacterial infections. Take one capsule "
        "three times a day, with or without food. Complete the full course even if you feel better. Tell your doctor "
        "if you are allergic to penicillin. Common side effects include nausea and diarrhoea.",
        "How should I take Amoxil-R?",
        ("Amoxil-R must be taken with food.", C, 2),
        ("You should finish the whole course even after you feel better.", E, 3),
        ("Nausea is a common side effect.", E, 5),
    ),
    _case(
        "ev-12",
        "Northline trains between Leeds and York. On weekdays trains leave Leeds at 10 and 40 minutes past each hour. "
        "The journey takes 25 minutes. On Sundays, trains leave Leeds once an hour, at 15 minutes past. A single "
        "ticket costs 9.80 pounds and a day return costs 11.50 pounds.",
        "How do I get from Leeds to York on a Sunday?",
        ("On Sundays there is one train an hour from Leeds.", E, 3),
        ("The trip from Leeds to York lasts 35 minutes.", C, 2),
        ("A day return ticket is 11.50 pounds.", E, 4),
        ("Bicycles can be taken on board free of charge.", N, None),
    ),
    _case(
        "ev-13",
        "Vela Fit 2 smartwatch. The Vela Fit 2 tracks heart rate, sleep and steps. It is water resistant to 50 "
        "metres, so it can be worn while swimming. GPS is built in, so runs can be tracked without a phone. Battery "
        "life is up to 10 days with normal use, or 7 hours with GPS on. The watch supports Android and iOS phones.",
        "Is the Vela Fit 2 good for swimming and running?",
        ("The Vela Fit 2 can be worn in the pool.", E, 2),
        ("With GPS switched on, its battery lasts around 7 days.", C, 4),
        ("It only works with Android phones.", C, 5),
    ),
    _case(
        "ev-14",
        "Exam rules for candidates at Hillcrest College. Candidates must be seated ten minutes before the exam starts. "
        "Calculators are allowed in the mathematics and physics papers. Calculators are not allowed in the chemistry "
        "paper. Candidates who arrive more than 30 minutes late will not be admitted. Water is allowed in a clear "
        "bottle.",
        None,
        ("Students may not use a calculator in the chemistry exam.", E, 3),
        ("A candidate who is 45 minutes late can still sit the exam.", C, 4),
        ("Water can be brought into the exam room in a clear bottle.", E, 5),
        ("Dictionaries are allowed in the language papers.", N, None),
    ),
    _case(
        "ev-15",
        "Halden Foods published its annual results on Thursday. Revenue rose 6 percent to 1.2 billion euros. Net "
        "profit fell 3 percent because of higher energy costs. The company will open two new factories in Poland "
        "next year. Chief executive Maria Lund said the dividend would stay unchanged.",
        "How did Halden Foods do this year?",
        ("Halden Foods' net profit dropped by 3 percent.", E, 2),
        ("Its revenue grew by 9 percent.", C, 1),
        ("The company plans to open new factories in Poland.", E, 3),
        ("The dividend will be raised.", C, 4),
    ),
    _case(
        "ev-16",
        "Rental conditions, Sunway Car Hire. Drivers must be at least 21 years old and have held a licence for two "
        "years. Drivers under 25 pay a young driver fee of 12 euros a day. The car must be returned with a full tank. "
        "Unlimited mileage is included on all rentals within Spain.",
        "I am 23. What will renting a car from Sunway involve?",
        ("A 23-year-old driver pays an extra 12 euros per day.", E, 2),
        ("The car can be returned with an empty tank.", C, 3),
        ("Mileage is unlimited for trips inside Spain.", E, 4),
        ("Child seats cost 5 euros a day.", N, None),
    ),
    _case(
        "ev-17",
        "Travel expenses policy. Staff travelling on company business may claim the cost of standard-class train "
        "tickets. First-class travel is only reimbursed for journeys longer than four hours. Hotel costs are "
        "reimbursed up to 150 pounds a night in London and 100 pounds elsewhere. Claims must be submitted within 30 "
        "days of travel.",
        "What travel costs can I claim back?",
        ("Hotels outside London are covered up to 100 pounds a night.", E, 3),
        ("Expense claims can be made up to 60 days after the trip.", C, 4),
        ("First-class fares are refunded only on trips of more than four hours.", E, 2),
    ),
    _case(
        "ev-18",
        "Visiting the Marlow Maritime Museum. The museum is open daily from 10:00 to 17:00, except on Mondays. Entry "
        "is free for children under 12. Adult tickets cost 14 pounds. Guided tours of the old lighthouse start at "
        "11:00 and 15:00. Photography is allowed, but flash is not.",
        "We are visiting the museum with our ten-year-old. What should we know?",
        ("A ten-year-old child gets in for nothing.", E, 2),
        ("Tours of the lighthouse begin at 11:00 and 14:00.", C, 4),
        ("Visitors may take photos as long as they do not use flash.", E, 5),
        ("The museum has a café on the top floor.", N, None),
    ),
    _case(
        "ev-19",
        "Clarivue eye drops for dry eyes. Put one or two drops into each eye up to four times a day. Remove contact "
        "lenses before using the drops. Wait 15 minutes before putting the lenses back in. Once opened, the bottle "
        "must be used within 28 days. Do not use the drops if the seal is broken.",
        "Can I use Clarivue with contact lenses?",
        ("You can keep your contact lenses in while using the drops.", C, 2),
        ("After applying the drops, wait 15 minutes before reinserting your lenses.", E, 3),
        ("An opened bottle should be thrown away after 28 days.", E, 4),
    ),
    _case(
        "ev-20",
        "Orion S5 smartphone, 2024 edition. The phone has a 6.1-inch OLED screen. It comes with 128 GB or 256 GB of "
        "storage. The battery holds 4,500 mAh and supports 45-watt fast charging. A charger is not included in the "
        "box. The phone receives software updates for five years.",
        None,
        ("The Orion S5 battery has a capacity of 4,500 mAh.", E, 3),
        ("The box includes a charger.", C, 4),
        ("It gets five years of software updates.", E, 5),
        ("The Orion S5 comes in three colours.", N, None),
    ),
    _case(
        "ev-21",
        "Westford council meeting, 12 May. Councillors approved a new cycle lane on King Street by 14 votes to 9. The "
        "lane will be built next spring. A proposal to raise parking fees in the town centre was rejected. The "
        "council will consult residents on a 20 mph limit near schools.",
        "What did Westford council decide on 12 May?",
        ("The King Street cycle lane was approved by 14 votes to 9.", E, 1),
        ("Parking fees in the town centre will go up.", C, 3),
        ("Construction of the lane will start in the autumn.", C, 2),
    ),
    _case(
        "ev-22",
        "Welcome to the Harbour View Hotel. Check-in is from 15:00 and check-out is by 11:00. Breakfast is served "
        "from 7:00 to 10:00 in the ground-floor restaurant. Late check-out until 14:00 can be booked for 20 euros. "
        "Parking in the hotel garage costs 18 euros per night. Pets are welcome for a fee of 10 euros per night.",
        "What are the check-in times and extras at the Harbour View Hotel?",
        ("Guests can check in from 15:00.", E, 1),
        ("Breakfast ends at 10:30.", C, 2),
        ("Staying until 14:00 on the last day costs 20 euros.", E, 3),
        ("Dogs are not allowed in the hotel.", C, 5),
    ),
    _case(
        "ev-23",
        "Sickness absence procedure. Employees who are ill must call their line manager before 9:30 on the first day "
        "of absence. A self-certification form is needed for absences of up to seven days. For absences longer than "
        "seven days, a doctor's note is required. Sick pay is paid at full salary for the first ten days each year.",
        "What do I have to do when I am off sick?",
        ("A doctor's note is needed when an absence lasts more than a week.", E, 3),
        ("Staff must phone their manager by 10:30 on the first day.", C, 1),
        ("Full sick pay covers the first ten days in a year.", E, 4),
        ("Sick employees may choose to work from home instead.", N, None),
    ),
    _case(
        "ev-24",
        "Weekend football round-up. Millbrook Rovers beat Eastport Town 3-1 on Saturday. Eastport's only goal came "
        "from a penalty in the 72nd minute. Rovers striker Kofi Asante scored twice. The win lifts Millbrook to "
        "third place in the league.",
        "How did Millbrook Rovers get on at the weekend?",
        ("Kofi Asante scored two goals for Millbrook.", E, 3),
        ("Eastport's goal was a free kick.", C, 2),
        ("After the win Millbrook are second in the league.", C, 4),
        ("Eastport's manager resigned after the match.", N, None),
    ),
    _case(
        "ev-25",
        "Zephyr V9 cordless vacuum cleaner. The V9 weighs 2.6 kilograms. Its battery runs for up to 60 minutes in eco "
        "mode and 12 minutes in boost mode. The dust bin holds 0.75 litres. The V9 comes with a wall mount and three "
        "attachments.",
        "How long does the Zephyr V9 run?",
        ("In boost mode the battery lasts about 12 minutes.", E, 2),
        ("The dust bin can hold 1.5 litres.", C, 3),
        ("A wall mount is included.", E, 4),
        ("The V9 is quieter than the older V8.", N, None),
    ),
    _case(
        "ev-26",
        "Term dates for Brookside Primary School, 2025 to 2026. The autumn term starts on Wednesday 3 September. Half "
        "term runs from 27 to 31 October. The autumn term ends on Friday 19 December. The spring term begins on "
        "Monday 5 January.",
        "When are the school terms at Brookside?",
        ("The autumn term begins on 3 September.", E, 1),
        ("The spring term starts on 6 January.", C, 4),
        ("The autumn half term is from 27 to 31 October.", E, 2),
    ),
    _case(
        "ev-27",
        "Hayzol 10 mg allergy tablets. Adults and children aged 12 and over should take one tablet once a day. Hayzol "
        "is not recommended for children under 12. The tablets may cause drowsiness in some people. If you feel "
        "drowsy, do not drive or operate machinery. Avoid drinking alcohol while taking Hayzol.",
        "Can I give Hayzol to my eight-year-old daughter?",
        ("Hayzol is not advised for an eight-year-old.", E, 2),
        ("Adults should take one tablet daily.", E, 1),
        ("Drinking alcohol while on Hayzol is fine.", C, 5),
        ("Hayzol starts working within an hour.", N, None),
    ),
    _case(
        "ev-28",
        "Fibrelink Home 500 broadband. The package offers download speeds of up to 500 Mbps and upload speeds of up "
        "to 100 Mbps. The contract runs for 18 months. The monthly price is 35 pounds for the first year and 42 pounds "
        "after that. Installation is free for new customers.",
        "What does Fibrelink Home 500 include?",
        ("Fibrelink Home 500 uploads at up to 100 Mbps.", E, 1),
        ("The contract lasts 12 months.", C, 2),
        ("In the second year the monthly price is 42 pounds.", E, 3),
        ("New customers pay 50 pounds for installation.", C, 4),
    ),
    _case(
        "ev-29",
        "Baggage rules for Skyway economy fares. Each passenger may bring one cabin bag of up to 8 kilograms. A small "
        "personal item such as a handbag is also allowed. Checked bags are not included in the Light fare. The "
        "Classic fare includes one checked bag of up to 23 kilograms.",
        "What luggage can I take on a Skyway Light fare?",
        ("Cabin bags may weigh up to 8 kilograms.", E, 1),
        ("The Light fare comes with a checked bag.", C, 3),
        ("Classic fare passengers can check in a bag weighing up to 23 kilograms.", E, 4),
    ),
    _case(
        "ev-30",
        "Notice to all staff at the Leeds office. The office will move to 40 Park Row on 2 June. The new office has "
        "120 desks and four meeting rooms. Staff parking will not be available at the new site. The company will pay "
        "half the cost of a monthly bus pass.",
        "What changes when the Leeds office moves?",
        ("The office relocates to 40 Park Row on 2 June.", E, 1),
        ("There will be staff parking at the new building.", C, 3),
        ("The company covers the full price of a monthly bus pass.", C, 4),
        ("The new office has a gym.", N, None),
    ),
)
