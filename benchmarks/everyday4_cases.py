"""The round-4 everyday set (issue 62): short audit records for twelve kinds of meaning, used to measure judges, never
to tune them.

Same shape as the everyday set (``benchmarks.everyday_cases``): each record is a short everyday document (a leisure
centre, a clinic, a shop, a bus timetable, a council notice, a school trip, a product page, an HR policy, a match
report, company news, a museum, a ferry, ...), usually the question a user asked, and an answer of one to three
sentences written the way an LLM assistant would put it (paraphrase, reordered clauses, synonyms, a friendly tone),
with the answer label and one claim label per answer sentence, in order. The answer label is the AND-join of the
claim labels (Con > Nic > Ent): contradicted if any claim is contradicted, else baseless if any is baseless, else
entailed. ``tests/benchmarks/test_everyday4_cases.py`` checks the shape.

Labelling rules: entailed, the context says so, in any words or number form; contradicted, the context says
otherwise; baseless, the context does not say and nothing in it contradicts the claim.

The kinds:

- ``absent-detail``: the answer states a detail the context never gives, in words that do occur in the context
  (members, pool, lunch, ...): baseless. Faithful twins restate a given detail in other words.
- ``pronoun-negation``: the fact sits in a context sentence that opens with It / They / This / He / She (often a
  negated one); the answer states the opposite and names the noun: contradicted.
- ``restriction``: the context restricts (a time limit with a receipt, an age, a day, a condition, a group); the
  answer widens the set or drops the condition: contradicted.
- ``ordering``: times, dates, prices, sizes or ages compared (arrives before, cheaper, older, bigger, faster); a
  wrong comparison: contradicted.
- ``antonym``: the answer uses an antonym of the context's word (closed / open, banned / permitted, rose / dropped,
  rejected / approved, low / high): contradicted. Faithful twins use a synonym, or the antonym under a negation.
- ``negation``: the answer adds or drops a negation, also in other words (never, no longer, fails to, still):
  contradicted.
- ``number-form``: the same amount in another form (words, per cent, fractions, durations, times of day) is
  entailed; another amount is contradicted.
- ``swap``: two entities, roles, places, years or amounts of the context swapped: contradicted.
- ``modality``: may / can / might / plans to against must / will / always / has, both ways: contradicted.
- ``invented-cause``: the answer gives a reason, purpose or consequence the context never states: baseless.
  Faithful twins give the reason the context does state.
- ``short-answer``: a wh- or yes/no question answered in a few words ("In 1962.", "Two.", "No — only ..."): a wrong
  answer is contradicted, one the context does not give is baseless.
- ``multi-claim``: a two- or three-sentence answer in which one sentence is wrong (contradicted or baseless) and
  the others are right; faithful twins have every sentence right.

Every kind has 13 records: 6 faithful look-alikes (built the same way, but supported by the context) and 7
hallucinated ones. The records were written by hand, before the claim verifier of issue 62 was trained, from the
kinds and the labelling rules alone, without reading any judge's code or output; they are measured once, at the end,
and never tuned to. None copies the examples quoted in issue 62 or a record of the earlier everyday sets.
"""

from __future__ import annotations

from typing import Optional

from rt4chart.types import Label

from .everyday_cases import Everyday

E, C, N = Label.ENTAILED, Label.CONTRADICTED, Label.BASELESS

#: every kind the set covers
KINDS = ("absent-detail", "pronoun-negation", "restriction", "ordering", "antonym", "negation", "number-form", "swap",
         "modality", "invented-cause", "short-answer", "multi-claim")


def _r(id: str, kind: str, context: str, question: Optional[str], answer: str, *claims: Label) -> Everyday:
    # the answer label is the AND-join of the claim labels (RT4CHART Eq. 4): Con > Nic > Ent
    label = C if C in claims else N if N in claims else E
    return Everyday(id, kind, context, answer, label, tuple(claims), question)


# --- absent-detail -----------------------------------------------------------------------------------------------
POOL = ("Westmere Leisure Centre has a 25-metre pool and a small sauna. Members can book lanes online up to seven days "
        "ahead. The pool is closed for cleaning every Tuesday morning.")
CLINIC = ("Dr Amina Okafor sees patients at the Fenwick Street clinic on Mondays and Thursdays. Appointments can be "
          "booked by phone. Walk-in patients are seen only if a slot is free.")
BOXES = ("The Tidy Nook sells handmade storage boxes in three sizes. Orders over 40 pounds ship free within the UK. "
         "Every box is made from recycled cardboard.")
LARKHILL = ("Pupils at Larkhill Primary must wear the green school jumper. The school day starts at 8:45 and ends at "
            "15:15. Lunch is served in the main hall.")
RAILMUSEUM = ("The Harrow Valley Railway Museum displays six steam locomotives. Guided tours leave from the "
              "ticket desk "
              "at 11:00 and 14:00.")

# --- pronoun-negation --------------------------------------------------------------------------------------------
BRIDGE = ("Millbrook Bridge was closed to cars in March for repairs. It has not been reopened since then. Pedestrians "
          "can still use the footpath.")
KETTLE = ("The Corvane 3 kettle holds 1.7 litres. It does not switch off automatically when the water boils. It is "
          "available in black and white.")
LINDQVIST = ("Marta Lindqvist joined Ostra Logistics as finance director in 2019. She was not part of the board that "
             "approved the merger. She left the company last year.")
CHOIR = ("The Dunmore Choir rehearses in St Luke's church hall. They have never performed abroad. They are looking for "
         "new tenors.")
CYCLELANE = ("The town's new cycle lane runs along Quay Road. This was not funded by the council. A local charity paid "
             "for it. It is open to e-scooters.")
COACH = ("Oliver Grant coaches the under-12 team at Redfield FC. He is not paid for the role. He has held it for six "
         "years.")
BAKERY = ("The Pelham Street bakery sells sourdough loaves every day. They are not baked on site. It stays open until "
          "17:00.")

# --- restriction -------------------------------------------------------------------------------------------------
CORRAN = ("Corran Outdoor Store accepts returns of unworn items within 30 days of purchase, with the receipt. Sale "
          "items cannot be returned.")
CLIMBING = ("The Aldgate climbing wall is open to members aged 16 and over. Younger climbers may use it only with a "
            "parent present.")
BRENNA = "Staff at Brenna Foods can work from home on Fridays, provided their manager agrees."
KESTREL = ("The Kestrel Bank savings account pays 4% interest on balances up to 10,000 pounds. Amounts above that earn "
           "1%.")
ASHBY = ("Free school meals at Ashby Academy are available to pupils in Years 7 to 9 whose families receive income "
         "support.")
CASTLE = ("Visitors to Greywater Castle can take photographs in the gardens only. Photography is not "
          "allowed inside the "
          "castle.")

# --- ordering ----------------------------------------------------------------------------------------------------
HOLTBUS = ("The 7:50 bus from Holt Cross reaches the hospital at 8:25. The next bus leaves Holt Cross at 8:20 and "
           "arrives at 8:55.")
CINEMA = ("At Pinewood Cinema a standard ticket costs 9 pounds and a premium seat costs 13 pounds. Tickets "
          "for children "
          "under 12 are 6 pounds.")
ABBEY = "Halden Abbey was founded in 1132. The nearby parish church of St Mary dates from 1210."
FLATS = ("The Tarn flat has two bedrooms and measures 64 square metres. The Fell flat has three bedrooms and measures "
         "82 square metres.")
TENK = "In the Brackley 10k, Sana Iqbal finished in 41 minutes and Tom Reyes in 39 minutes."
TERM = ("The spring term at Orchard College starts on 8 January and ends on 22 March. Exams start on 3 June.")

# --- antonym -----------------------------------------------------------------------------------------------------
PHARMACY = "Brightside Pharmacy is closed on Sunday afternoons. On Saturdays it opens at 9:00."
ALDER = ("Dogs are banned from the children's play area in Alder Park. They are allowed on the main lawns on a lead.")
MARLOW = "Sales at Marlow Bikes rose by 15% last year. Profits fell slightly."
MAST = "The planning committee rejected the application for a phone mast on Brook Lane."
CORRIE = ("Water levels in Lake Corrie are unusually low this summer. The sailing club has cancelled its regatta.")
VELO = "The new Velo X2 headphones are lighter than the previous model. Their battery life is shorter."

# --- negation ----------------------------------------------------------------------------------------------------
DENTAL = "Henley Dental no longer accepts new NHS patients. Private patients can register online."
ROUTER = "The Crestline router supports guest networks. It does not support parental controls."
BRANDT = "Ella Brandt has never lost a match at the club championship. She won the title in 2021 and 2023."
BINS = ("Residents must register their bins with the council. Garden waste is collected every two weeks, and "
        "collection is free.")
ORLA = "The Orla Cafe serves breakfast until 11:30. It does not take bookings for groups smaller than six."
CARLOW = "The 14:05 train to Carlow did not stop at Milton Halt today because of flooding."

# --- number-form -------------------------------------------------------------------------------------------------
SUNFIELD = "The Sunfield half marathon starts at 8:30 on Sunday 14 September. Entry costs 32 pounds."
STENBY = "Around 1,200 people live in the village of Stenby, a quarter of them over 65."
AUREX = "The Aurex 40 TV has a 40-inch screen and weighs 6.5 kilograms."
SPEED = "The council will cut the town's speed limit from 30 mph to 20 mph next year."
COLDBROOK = "Coldbrook Reservoir holds 3 million cubic metres of water and is 40 metres deep."
CANTEEN = "The staff canteen is open from 11:45 to 14:15 on weekdays."

# --- swap --------------------------------------------------------------------------------------------------------
FINAL = "In the cup final, Kingsbridge Rovers beat Ashcombe Town 3-1."
ELMWOOD = "Priya Nair is the head teacher at Elmwood School and Daniel Cho is her deputy."
BAYVIEW = "At the Bayview Hotel, single rooms cost 70 pounds a night and double rooms cost 95 pounds."
FENN = ("The Harlow branch of Fenn Books moved to Castle Street in 2018, and the Dunford branch moved to Market Square "
        "in 2021.")
GATES = "Passengers for Corby board at Gate 4, and passengers for Lenton board at Gate 9."
ORRIN = "Orrin Tech bought the start-up Lumea for 12 million pounds."

# --- modality ----------------------------------------------------------------------------------------------------
GREENWAY = ("Greenway Housing plans to install solar panels on its flats next year. Tenants may be asked to move out "
            "for a few days during the work.")
LAB = "All visitors to the lab must sign in at reception. Visitors can borrow a lab coat."
FESTIVAL = "The Castlegate festival might move to a bigger park in 2026."
MORROW = ("Employees at Morrow Insurance can carry over up to five days of unused leave. Leave requests must be "
          "approved by a manager.")
NIMBUS = "The Nimbus air purifier always switches to night mode after 22:00."
LINDEN = "The roadworks on Linden Road are expected to finish in May."

# --- invented-cause ----------------------------------------------------------------------------------------------
WRENFIELD = ("Wrenfield swimming pool will close for six weeks from 1 July. The changing rooms are being rebuilt.")
TOLLY = "Tolly's Bakery raised the price of its loaves to 3 pounds in May."
ROUTE12 = "Norbury bus route 12 was withdrawn in April after passenger numbers fell by half."
HALBERD = ("Halberd Systems will hire 200 engineers at its Preston site this year to support a new contract with a "
           "rail operator.")
CROSSING = ("The Elm Street crossing now has a 20-second green phase for pedestrians. Before the change it was 12 "
            "seconds.")
KERROW = "Kerrow Farm Shop stopped selling plastic bags last month after a survey of its customers."
GALLERY = "The museum's Egyptian gallery is closed this week while new lighting is installed."

# --- short-answer ------------------------------------------------------------------------------------------------
VITABRIGHT = ("Pack of 30 Vitabright vitamin D tablets. Each tablet contains 25 micrograms of vitamin D. Adults should "
              "take one tablet a day with food.")
ROSSLYN = ("The Rosslyn Gallery opened in 1962 in a former wool warehouse. Entry is free, but special exhibitions cost "
           "8 pounds.")
FERRY = "The ferry from Kilbrae to Inchmore takes 50 minutes and sails three times a day, except on Sundays."
VALE = "Harriet Vale, 34, was named captain of the Northfield hockey team last season."

# --- multi-claim -------------------------------------------------------------------------------------------------
MARKET = ("The Oakhurst farmers' market runs every Saturday from 8:00 to 13:00 in the town square. Around 40 stalls "
          "sell local produce. Parking is free in the Bridge Street car park on market days.")
LOWEN = ("Lowen Ltd reported revenue of 48 million pounds for 2023, up 6% from 2022. The company plans to open two new "
         "warehouses in 2024. Its chief executive, Rhona Maclean, will step down in March.")
TRIP = ("Class 4B at Hillcrest School visits the science museum on 12 May. The coach leaves at 8:30 and returns by "
        "15:30. Pupils need a packed lunch and a signed consent form.")
BRISA = ("The Brisa 5 electric scooter has a top speed of 25 km/h and a range of 40 km. It weighs 14 kg and folds for "
         "carrying. The battery charges fully in five hours.")
TALK = ("Dr Kofi Mensah's talk on coral reefs is on Thursday at 19:00 in the Abbey Hall. Tickets cost 6 pounds, and "
        "members of the natural history society go free.")
THORNBURY = ("The gym at Thornbury Leisure Centre reopened on 2 June after a refit. It now has 30 new "
             "running machines. "
             "Opening hours are unchanged.")

_SPECS = (
    # absent-detail: 6 faithful, 7 baseless
    ("absent-detail", POOL, "Can I book a lane in advance?",
     "Yes, members can reserve a lane on the website as much as a week before.", E),
    ("absent-detail", POOL, "Is there parking at the centre?",
     "Members get free parking at the leisure centre.", N),
    ("absent-detail", POOL, "When is the pool cleaned?",
     "The pool shuts on Tuesday mornings so that it can be cleaned.", E),
    ("absent-detail", POOL, "How hot is the sauna?",
     "The sauna is kept at around 80 degrees.", N),
    ("absent-detail", CLINIC, "How do I get an appointment with Dr Okafor?",
     "You can book an appointment by giving the clinic a call.", E),
    ("absent-detail", CLINIC, "What happens if I miss my appointment?",
     "Patients who miss an appointment are charged a 15 pound fee.", N),
    ("absent-detail", CLINIC, None,
     "The clinic also has a nurse who sees walk-in patients.", N),
    ("absent-detail", BOXES, "What are the boxes made of?",
     "All of the boxes are crafted from recycled cardboard.", E),
    ("absent-detail", BOXES, "Do you ship abroad?",
     "Orders going to other countries ship for a flat fee of 12 pounds.", N),
    ("absent-detail", LARKHILL, "What time does school finish?",
     "Classes end at a quarter past three in the afternoon.", E),
    ("absent-detail", LARKHILL, "How much are school lunches?",
     "A school lunch in the main hall costs 2 pounds a day.", N),
    ("absent-detail", RAILMUSEUM, "Can visitors ride a train at the museum?",
     "Visitors can ride on one of the steam locomotives at weekends.", N),
    ("absent-detail", RAILMUSEUM, "Where do the guided tours start?",
     "The guided tours set off from the ticket desk.", E),
    # pronoun-negation: 6 faithful, 7 contradicted
    ("pronoun-negation", BRIDGE, "Can I drive over Millbrook Bridge now?",
     "Millbrook Bridge has reopened to cars now that the repairs are done.", C),
    ("pronoun-negation", BRIDGE, "Is Millbrook Bridge open to traffic yet?",
     "Millbrook Bridge is still shut to cars.", E),
    ("pronoun-negation", KETTLE, "Does the Corvane 3 turn itself off?",
     "The Corvane 3 kettle switches off by itself once the water boils.", C),
    ("pronoun-negation", KETTLE, "What colours does the Corvane 3 come in?",
     "The Corvane 3 is sold in black and in white.", E),
    ("pronoun-negation", LINDQVIST, "Was Marta Lindqvist involved in the merger decision?",
     "Marta Lindqvist sat on the board that approved the merger.", C),
    ("pronoun-negation", LINDQVIST, "Does Marta Lindqvist still work at Ostra Logistics?",
     "Marta Lindqvist is no longer with Ostra Logistics.", E),
    ("pronoun-negation", CHOIR, "Has the Dunmore Choir ever sung outside the country?",
     "The Dunmore Choir has performed abroad before.", C),
    ("pronoun-negation", CHOIR, None,
     "The Dunmore Choir is currently recruiting new tenors.", E),
    ("pronoun-negation", CYCLELANE, "Who paid for the Quay Road cycle lane?",
     "The council paid for the cycle lane on Quay Road.", C),
    ("pronoun-negation", CYCLELANE, "Can I ride my e-scooter in the new cycle lane?",
     "Yes, e-scooters are allowed to use the Quay Road cycle lane.", E),
    ("pronoun-negation", COACH, "Is Oliver Grant paid to coach?",
     "Oliver Grant receives a salary for coaching the under-12s.", C),
    ("pronoun-negation", COACH, None,
     "Oliver Grant coaches Redfield's under-12 side without being paid for it.", E),
    ("pronoun-negation", BAKERY, "Does the Pelham Street bakery make its own bread?",
     "The bakery's sourdough loaves are baked on the premises.", C),
    # restriction: 6 faithful, 7 contradicted
    ("restriction", CORRAN, "What's Corran's returns policy?",
     "You can bring back any unworn item within 30 days, even if you don't have the receipt.", C),
    ("restriction", CORRAN, "Can I return a jacket I haven't worn?",
     "Unworn items can be returned within 30 days as long as you have your receipt.", E),
    ("restriction", CLIMBING, "Can my 14-year-old climb there alone?",
     "Climbers of any age can use the wall on their own.", C),
    ("restriction", CLIMBING, "Who can use the climbing wall?",
     "Members who are 16 or older can use the climbing wall.", E),
    ("restriction", CLIMBING, "Can children under 16 climb?",
     "Yes, climbers under 16 can use the wall if a parent comes along with them.", E),
    ("restriction", BRENNA, "Can I work from home on Fridays?",
     "Brenna Foods employees can work from home on Fridays without needing anyone's approval.", C),
    ("restriction", BRENNA, None,
     "With their manager's agreement, Brenna Foods staff can work remotely on Fridays.", E),
    ("restriction", KESTREL, "What interest does the Kestrel savings account pay?",
     "The Kestrel savings account pays 4% interest on the whole balance, however large it is.", C),
    ("restriction", KESTREL, "What rate do I get on 8,000 pounds?",
     "Balances of up to 10,000 pounds earn 4% in the Kestrel savings account.", E),
    ("restriction", ASHBY, "Who gets free school meals at Ashby Academy?",
     "Every pupil at Ashby Academy gets free school meals.", C),
    ("restriction", ASHBY, "Does my daughter in Year 8 qualify for free meals?",
     "All pupils in Years 7 to 9 at Ashby Academy get free meals.", C),
    ("restriction", CASTLE, "Where can I take photos at Greywater Castle?",
     "You can take pictures anywhere at Greywater Castle.", C),
    ("restriction", CASTLE, "Am I allowed to take photos in the gardens?",
     "Yes, photography is permitted in the castle gardens.", E),
    # ordering: 6 faithful, 7 contradicted
    ("ordering", HOLTBUS, "Which bus gets to the hospital first?",
     "The 8:20 bus arrives at the hospital before the 7:50 one.", C),
    ("ordering", HOLTBUS, "How much earlier does the first bus arrive?",
     "The 7:50 bus gets to the hospital half an hour earlier than the next one.", E),
    ("ordering", HOLTBUS, "Which journey takes longer?",
     "The 8:20 bus takes longer to reach the hospital than the 7:50 bus.", C),
    ("ordering", CINEMA, "Which ticket is cheapest?",
     "A premium seat is cheaper than a standard ticket.", C),
    ("ordering", CINEMA, "Are children's tickets cheaper?",
     "Yes, children's tickets cost less than standard ones.", E),
    ("ordering", ABBEY, "Which is older, the abbey or the church?",
     "St Mary's church is older than Halden Abbey.", C),
    ("ordering", ABBEY, None,
     "Halden Abbey was founded earlier than the church of St Mary.", E),
    ("ordering", FLATS, "Which flat is bigger?",
     "The Fell flat is smaller than the Tarn flat.", C),
    ("ordering", FLATS, "How do the two flats compare?",
     "The Tarn flat has fewer bedrooms than the Fell flat.", E),
    ("ordering", TENK, "Who won between Sana and Tom?",
     "Sana Iqbal finished ahead of Tom Reyes.", C),
    ("ordering", TENK, "Who was faster in the Brackley 10k?",
     "Tom Reyes was two minutes quicker than Sana Iqbal.", E),
    ("ordering", TERM, "Are the exams during the spring term?",
     "The exams come before the end of the spring term.", C),
    ("ordering", TERM, "Does the spring term start before the exams?",
     "Yes, the spring term begins well before the exams do.", E),
    # antonym: 6 faithful, 7 contradicted
    ("antonym", PHARMACY, "Can I pick up a prescription on Sunday afternoon?",
     "Brightside Pharmacy is open on Sunday afternoons.", C),
    ("antonym", PHARMACY, "Is the pharmacy open on Sunday afternoons?",
     "No, Brightside Pharmacy does not open on Sunday afternoons.", E),
    ("antonym", ALDER, "Can I take my dog into the play area?",
     "Dogs are permitted in the children's play area at Alder Park.", C),
    ("antonym", ALDER, "Where can dogs go in Alder Park?",
     "Dogs on a lead are permitted on the main lawns.", E),
    ("antonym", MARLOW, "How did Marlow Bikes do last year?",
     "Marlow Bikes saw its sales drop last year.", C),
    ("antonym", MARLOW, "What happened to Marlow Bikes' profits?",
     "Marlow Bikes' profits went up last year.", C),
    ("antonym", MARLOW, None,
     "Sales at Marlow Bikes increased last year.", E),
    ("antonym", MAST, "What happened to the Brook Lane mast application?",
     "The planning committee approved the phone mast on Brook Lane.", C),
    ("antonym", MAST, "Was the phone mast approved?",
     "No, the committee turned down the application for the Brook Lane mast.", E),
    ("antonym", CORRIE, "How is Lake Corrie looking this summer?",
     "The water level in Lake Corrie is high this summer.", C),
    ("antonym", CORRIE, "Is the regatta still on?",
     "No, the sailing club has called off its regatta.", E),
    ("antonym", VELO, "Does the Velo X2 last longer on a charge?",
     "The Velo X2's battery lasts longer than the old model's.", C),
    ("antonym", VELO, "Is the Velo X2 heavier than before?",
     "No, the Velo X2 is not as heavy as the earlier model.", E),
    # negation: 6 faithful, 7 contradicted
    ("negation", DENTAL, "Can I join Henley Dental as an NHS patient?",
     "Henley Dental is still taking on new NHS patients.", C),
    ("negation", DENTAL, "Is Henley Dental accepting NHS patients?",
     "Henley Dental has stopped accepting new NHS patients.", E),
    ("negation", ROUTER, "Does the Crestline router have parental controls?",
     "Yes, the Crestline router offers parental controls.", C),
    ("negation", ROUTER, None,
     "The Crestline router has no parental control feature.", E),
    ("negation", ROUTER, "Can I set up a guest network on it?",
     "The Crestline router fails to support guest networks.", C),
    ("negation", BRANDT, "What is Ella Brandt's record at the club championship?",
     "Ella Brandt has lost several matches at the club championship.", C),
    ("negation", BRANDT, "Has Ella Brandt ever been beaten at the championship?",
     "Ella Brandt is unbeaten at the club championship.", E),
    ("negation", BINS, "Do I have to pay for garden waste collection?",
     "Garden waste collection is not free.", C),
    ("negation", BINS, "How often is garden waste collected?",
     "Garden waste is picked up every fortnight at no charge.", E),
    ("negation", ORLA, "Can I book a table for four at the Orla Cafe?",
     "Yes, groups of four can book a table at the Orla Cafe.", C),
    ("negation", ORLA, "Can I reserve a table for three?",
     "The Orla Cafe won't take a booking for a party of three.", E),
    ("negation", CARLOW, "Did the 14:05 stop at Milton Halt?",
     "The 14:05 to Carlow called at Milton Halt as usual today.", C),
    ("negation", CARLOW, "Why didn't my train stop at Milton Halt?",
     "Flooding meant the 14:05 to Carlow skipped Milton Halt today.", E),
    # number-form: 6 faithful, 7 contradicted
    ("number-form", SUNFIELD, "What time does the Sunfield half marathon start?",
     "The race starts at half past eight in the morning.", E),
    ("number-form", SUNFIELD, "When is the start?",
     "The half marathon gets under way at 9:30.", C),
    ("number-form", SUNFIELD, "How much is entry?",
     "Entry is thirty-two pounds.", E),
    ("number-form", STENBY, "How many older people live in Stenby?",
     "About 25% of Stenby's residents are older than 65.", E),
    ("number-form", STENBY, None,
     "A third of the people living in Stenby are over 65.", C),
    ("number-form", AUREX, "How heavy is the Aurex 40?",
     "The Aurex 40 weighs six and a half kilos.", E),
    ("number-form", AUREX, "What does the Aurex 40 weigh?",
     "The Aurex 40 weighs 5.6 kilograms.", C),
    ("number-form", SPEED, "How much lower will the speed limit be?",
     "The speed limit will drop by 10 mph.", E),
    ("number-form", SPEED, "What will the new speed limit be?",
     "The new speed limit will be 25 mph.", C),
    ("number-form", COLDBROOK, "How deep is Coldbrook Reservoir?",
     "Coldbrook Reservoir is 4 metres deep.", C),
    ("number-form", COLDBROOK, "How much water does the reservoir hold?",
     "The reservoir holds 30 million cubic metres of water.", C),
    ("number-form", CANTEEN, "How long is the canteen open?",
     "The canteen stays open for two and a half hours each weekday.", E),
    ("number-form", CANTEEN, "When does the canteen close?",
     "The canteen closes at a quarter to two.", C),
    # swap: 6 faithful, 7 contradicted
    ("swap", FINAL, "Who won the cup final?",
     "Ashcombe Town beat Kingsbridge Rovers 3-1 in the final.", C),
    ("swap", FINAL, "What was the result of the final?",
     "Kingsbridge Rovers won the final 3-1 against Ashcombe Town.", E),
    ("swap", ELMWOOD, "Who runs Elmwood School?",
     "Daniel Cho is the head teacher at Elmwood, with Priya Nair as his deputy.", C),
    ("swap", ELMWOOD, "Who is the deputy head at Elmwood?",
     "Priya Nair's deputy at Elmwood School is Daniel Cho.", E),
    ("swap", BAYVIEW, "How much is a double room?",
     "A double room at the Bayview costs 70 pounds per night.", C),
    ("swap", BAYVIEW, "How much is a single room?",
     "Single rooms at the Bayview are 70 pounds a night.", E),
    ("swap", FENN, "Where did the Dunford branch move to?",
     "Fenn Books' Dunford branch moved to Castle Street.", C),
    ("swap", FENN, "When did the Harlow branch move?",
     "The Harlow branch of Fenn Books moved in 2021.", C),
    ("swap", FENN, None,
     "Fenn Books' Dunford shop relocated to Market Square in 2021.", E),
    ("swap", GATES, "Which gate is the Lenton flight?",
     "Passengers flying to Lenton should go to Gate 4.", C),
    ("swap", GATES, "Where do I board for Corby?",
     "The Corby flight boards at Gate 4.", E),
    ("swap", ORRIN, "Who bought whom?",
     "Lumea bought Orrin Tech for 12 million pounds.", C),
    ("swap", ORRIN, "What did Orrin Tech buy?",
     "The start-up Lumea was acquired by Orrin Tech for 12 million pounds.", E),
    # modality: 6 faithful, 7 contradicted
    ("modality", GREENWAY, "Do Greenway flats have solar panels?",
     "Greenway Housing has installed solar panels on its flats.", C),
    ("modality", GREENWAY, "Will tenants need to leave during the work?",
     "Tenants will have to move out while the work is done.", C),
    ("modality", GREENWAY, "What is Greenway planning?",
     "Greenway Housing intends to put solar panels on its flats next year.", E),
    ("modality", LAB, "Do visitors need to sign in?",
     "Visitors may sign in at reception if they want to.", C),
    ("modality", LAB, "What do visitors have to do on arrival?",
     "Every visitor to the lab is required to sign in at reception.", E),
    ("modality", LAB, "Do I need a lab coat?",
     "Visitors have to borrow a lab coat.", C),
    ("modality", FESTIVAL, "Is the Castlegate festival moving?",
     "The Castlegate festival will move to a bigger park in 2026.", C),
    ("modality", FESTIVAL, None,
     "The Castlegate festival could relocate to a larger park in 2026.", E),
    ("modality", MORROW, "Can I carry over unused leave?",
     "Morrow Insurance staff may carry over as many as five unused leave days.", E),
    ("modality", MORROW, "Does my leave need approval?",
     "Staff at Morrow Insurance can take leave without a manager's approval.", C),
    ("modality", NIMBUS, "Does the purifier go into night mode?",
     "The Nimbus purifier might switch to night mode after 22:00.", C),
    ("modality", NIMBUS, "What happens after 22:00?",
     "After 22:00 the Nimbus purifier goes into night mode every time.", E),
    ("modality", LINDEN, "When will the Linden Road roadworks be done?",
     "The Linden Road roadworks should be finished in May.", E),
    # invented-cause: 6 faithful, 7 baseless
    ("invented-cause", WRENFIELD, "Why is Wrenfield pool closing?",
     "The pool is closing for six weeks so that the changing rooms can be rebuilt.", E),
    ("invented-cause", WRENFIELD, "What's wrong with the pool?",
     "The pool is shutting because of a leak in the main tank.", N),
    ("invented-cause", TOLLY, "Why are Tolly's loaves more expensive?",
     "Tolly's Bakery put its loaf price up to 3 pounds because flour got more expensive.", N),
    ("invented-cause", ROUTE12, "Why was route 12 withdrawn?",
     "Route 12 was scrapped in April because passenger numbers dropped by 50%.", E),
    ("invented-cause", ROUTE12, None,
     "Route 12 was withdrawn to cut the council's transport budget.", N),
    ("invented-cause", HALBERD, "Why is Halberd hiring?",
     "Halberd Systems is taking on 200 engineers in Preston to support a new rail contract.", E),
    ("invented-cause", HALBERD, "What will the new jobs mean for Preston?",
     "The new engineering jobs will help bring down unemployment in Preston.", N),
    ("invented-cause", CROSSING, "Why was the crossing changed?",
     "The green phase was lengthened so that older people have enough time to cross.", N),
    ("invented-cause", CROSSING, "How much longer is the green phase now?",
     "Pedestrians now get eight more seconds of green light at the Elm Street crossing.", E),
    ("invented-cause", KERROW, "Why did Kerrow stop selling plastic bags?",
     "Kerrow Farm Shop dropped plastic bags following a survey of its customers.", E),
    ("invented-cause", KERROW, "What happens now that plastic bags are gone?",
     "As a result, the shop now gives out paper bags for free.", N),
    ("invented-cause", GALLERY, "Why is the Egyptian gallery closed?",
     "The Egyptian gallery is shut this week so that new lighting can be fitted.", E),
    ("invented-cause", GALLERY, "Was anything damaged in the Egyptian gallery?",
     "The gallery is closed because some objects were damaged by the old lights.", N),
    # short-answer: 6 faithful, 7 hallucinated (4 contradicted, 3 baseless)
    ("short-answer", VITABRIGHT, "How much vitamin D is in each tablet?", "25 micrograms.", E),
    ("short-answer", VITABRIGHT, "How many tablets should an adult take a day?", "Two.", C),
    ("short-answer", VITABRIGHT, "Are the tablets suitable for vegans?", "Yes, they are.", N),
    ("short-answer", VITABRIGHT, "Should I take them on an empty stomach?", "Yes, before meals.", C),
    ("short-answer", ROSSLYN, "When did the Rosslyn Gallery open?", "In 1962.", E),
    ("short-answer", ROSSLYN, "Do I have to pay to get in?", "No — only the special exhibitions have a charge.", E),
    ("short-answer", ROSSLYN, "What was the building before it was a gallery?", "A textile mill.", C),
    ("short-answer", FERRY, "Does the ferry run on Sundays?", "Yes, three times.", C),
    ("short-answer", FERRY, "How long is the crossing?", "Just under an hour.", E),
    ("short-answer", FERRY, "How much is a ticket?", "About 15 pounds.", N),
    ("short-answer", VALE, "Who captains the Northfield hockey team?", "Harriet Vale.", E),
    ("short-answer", VALE, "How old is the captain?", "Thirty-four.", E),
    ("short-answer", VALE, "Which position does she play?", "Goalkeeper.", N),
    # multi-claim: 6 faithful, 7 with one wrong sentence
    ("multi-claim", MARKET, "When and where is the Oakhurst market?",
     ("The Oakhurst market is held every Saturday in the town square.", "It runs from 8:00 until 1 pm.",
      "You can park for free on Bridge Street on market days."), (E, E, E)),
    ("multi-claim", MARKET, "Tell me about the Oakhurst market.",
     ("The market takes place in the town square on Saturdays.", "About 40 stalls sell local food.",
      "It opens at 9:00."), (E, E, C)),
    ("multi-claim", LOWEN, "How did Lowen do in 2023?",
     ("Lowen Ltd made 48 million pounds in revenue in 2023.", "That was 6% more than the year before.",
      "Rhona Maclean will leave her job as chief executive in March."), (E, E, E)),
    ("multi-claim", LOWEN, None,
     ("Lowen's revenue for 2023 came to 48 million pounds.", "Rhona Maclean is stepping down because of ill health."),
     (E, N)),
    ("multi-claim", LOWEN, "What are Lowen's plans?",
     ("Lowen Ltd's revenue grew by 6% in 2023.", "The firm is planning to open three new warehouses in 2024."),
     (E, C)),
    ("multi-claim", TRIP, "What do I need to know about the 4B trip?",
     ("Class 4B's museum trip is on 12 May.", "Pupils should bring a packed lunch and a signed consent form."),
     (E, E)),
    ("multi-claim", TRIP, "What time does the coach leave?",
     ("The coach for the trip departs at 8:30.", "Entry to the museum costs each pupil 5 pounds."), (E, N)),
    ("multi-claim", TRIP, "When is the trip and when will they be back?",
     ("The trip is on 12 May.", "The coach gets back by 16:30."), (E, C)),
    ("multi-claim", BRISA, "What's the Brisa 5 like?",
     ("The Brisa 5 can go up to 25 km/h.", "It folds up so you can carry it.", "A full charge takes five hours."),
     (E, E, E)),
    ("multi-claim", BRISA, "Give me the Brisa 5's main specs.",
     ("The Brisa 5 has a range of 40 km.", "It weighs 14 kg.", "The scooter is fully waterproof."), (E, E, N)),
    ("multi-claim", TALK, "When is the coral reef talk and do members pay?",
     ("The coral reef talk is on Thursday evening at 7 pm.", "Natural history society members don't pay to attend."),
     (E, E)),
    ("multi-claim", TALK, "Where is the talk and how much are tickets?",
     ("Kofi Mensah is speaking about coral reefs in the Abbey Hall.", "Tickets are 8 pounds."), (E, C)),
    ("multi-claim", THORNBURY, "Is the Thornbury gym open again?",
     ("Thornbury's gym has been open again since 2 June, following a refit.",
      "There are now 30 new running machines."), (E, E)),
)


def _build() -> tuple[Everyday, ...]:
    out = []
    for i, spec in enumerate(_SPECS, 1):
        kind, context, question, answer, claims = spec
        if isinstance(answer, tuple):
            answer = " ".join(answer)
        else:
            claims = (claims,)
        out.append(_r(f"e4-{i:03d}", kind, context, question, answer, *claims))
    return tuple(out)


#: every record, in kind order
RECORDS = _build()
