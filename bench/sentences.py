"""Fixed sentence sets for synthetic speech. Calibration and benchmark use *different*
sentences, so thresholds are never tuned on the text they are scored on."""

CALIBRATION = (
    "Hey Maria, did you get the 3 reports I sent this morning?",
    "I think the meeting with Daniel starts at 10 tomorrow.",
    "Could you pick up 2 bottles of milk on the way home?",
    "The train to Boston leaves at half past 7 every weekday.",
    "Sophie said the kitchen tap has been dripping for 5 days.",
    "Let's book a table for 4 at the Italian place on Friday.",
    "My brother Lucas moved to a flat on 12th Street last year.",
    "Remind me to call the dentist before 3 in the afternoon.",
    "We spent nearly 40 minutes looking for a parking space.",
    "Olivia prefers the window seat whenever we fly anywhere.",
    "The heating bill came to about 90 dollars this month.",
    "Can someone water the plants while I'm away for a week?",
)

BENCHMARK = (
    "Did anyone call Thomas about the 30 missing boxes?",
    "I'd like the quiet room on the second floor if possible.",
    "Our flight lands at 6 so we should be home by 8.",
    "Grandma wants everyone at her place for lunch on Sunday.",
    "The printer on the third floor is out of toner again.",
    "Please turn the air conditioning down, it's freezing back here.",
    "Emma finished the marathon in just under 4 hours.",
    "We need to renew the car insurance before the 15th.",
    "Can you play something relaxing for the next half hour?",
    "The kids have swimming lessons every Tuesday after school.",
    "I left my umbrella at the office, so I got soaked.",
    "Noah asked whether the museum is open on public holidays.",
    "Let's take the scenic route along the coast this time.",
    "The dishwasher finished, but the glasses are still cloudy.",
    "I'm allergic to peanuts, so please check the sauce.",
    "Jack's birthday party is at the bowling alley at 5.",
    "We should leave early to avoid traffic on the bridge.",
    "My phone battery dies after only a few hours now.",
    "Could you book two tickets for the concert in March?",
    "Mia thinks the blue curtains look better in the lounge.",
)

QUESTIONS = (
    "What did I ask you to remember yesterday?",
    "When is my next appointment?",
    "What did I say about the car insurance?",
    "Which restaurant did I want to book?",
    "Remind me what I said about the flight.",
    "What was the thing I was allergic to?",
)
