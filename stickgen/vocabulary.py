"""The words of the 60 actions: what people call each one, and how they describe it.

Two tuples per action, as verb phrases in the base form ("walk forward", "take a seat"), with "its"
and "itself" standing for the subject's own pronoun (the grammar writes "her", "his", "their"):

- `words` NAME the action ("sit down", "take a seat", "grab a chair"), the most common first. The
  synthesizer's description grammar (`stickgen.synth.text`) uses them, its short plain prompt uses the
  first, and `stickgen.action_words` matches them in prompts and in imported descriptions.
- `descriptions` say what the body does without naming the action ("bends its knees and lowers its
  hips onto a seat"). They are written in the third person, ready to follow a subject, because they
  often hold several verbs. Only the grammar uses them, for some of a clip's sentences, so that the
  text pathway of the model learns what sentences mean rather than a list of names.

The first word of every `words` phrase is a verb that the grammar conjugates ("walks", "walking"),
and no other word of it is a verb that would need conjugating too; verbs whose last consonant
doubles are listed in `DOUBLED` below. A few phrases name two actions
(`SHARED`: "get up" from a chair or from the floor); the grammar uses them for both, and the prompt
matcher takes the first action in `ACTIONS` order that lists them.

This module is data at the bottom of the package: it imports nothing but the action names, so the
prompt matcher can be built without loading the synthesizer. The conjugation that the grammar and
the matcher share (`third_person`, `gerund`) lives here for the same reason.
"""

from __future__ import annotations

# Short verbs whose last consonant doubles before -ing (run → running).
DOUBLED = frozenset({
    "run", "hop", "sit", "jog", "skip", "step", "get", "clap", "swim", "trot", "stop", "drop", "grab", "spin",
    "dig", "nod", "pat", "plan", "slip", "trip", "tip", "put", "shrug", "squat", "hit", "jab", "tug", "lob",
    "drag", "bat", "sidestep", "strut", "shin", "flop", "snag", "snap", "chip", "jam", "pop", "plod", "trap",
    "misstep", "side-step", "bid", "scan", "spar", "flag",
})  # fmt: skip
_IRREGULAR_THIRD = {"be": "is", "have": "has", "do": "does", "go": "goes"}
_IRREGULAR_GERUND = {"be": "being", "boogie": "boogieing", "frolic": "frolicking"}


def third_person(phrase: str) -> str:
    """ "walk forward" → "walks forward"."""
    verb, _, rest = phrase.partition(" ")
    if verb in _IRREGULAR_THIRD:
        out = _IRREGULAR_THIRD[verb]
    elif verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        out = verb + "es"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        out = verb[:-1] + "ies"
    else:
        out = verb + "s"
    return f"{out} {rest}".strip()


def gerund(phrase: str) -> str:
    """ "sit down" → "sitting down", "take a seat" → "taking a seat"."""
    verb, _, rest = phrase.partition(" ")
    if verb in _IRREGULAR_GERUND:
        out = _IRREGULAR_GERUND[verb]
    elif verb.endswith("ie"):
        out = verb[:-2] + "ying"
    elif verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        out = verb[:-1] + "ing"
    elif verb in DOUBLED:
        out = verb + verb[-1] + "ing"
    else:
        out = verb + "ing"
    return f"{out} {rest}".strip()


# The ways to say a direction of travel on the screen: +1 right (+x), −1 left. The grammar writes
# them after a travelling action ("walks to the right"); `stickgen.action_words.direction_in_text`
# reads them in prompts.
DIRECTION = {
    1: ("to the right", "rightward", "toward the right"),
    -1: ("to the left", "leftward", "toward the left"),
}

# Phrases listed under two actions on purpose.
SHARED = frozenset({"get up", "get to its feet", "rise to its feet", "duck"})

# action: (words, descriptions)
VOCABULARY: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "idle": (
        ("stand still", "stand", "stand idle", "wait", "stand around", "rest", "pause", "stay still",
         "stand there", "hang around", "stand in place", "wait patiently", "stand quietly", "do nothing",
         "stand at ease", "idle", "linger", "stay put", "wait around", "loiter", "stand motionless",
         "remain standing", "stand calmly", "chill"),
        ("shifts its weight from one foot to the other", "stands with its arms hanging loosely",
         "breathes calmly with both feet planted", "stays on the spot with its arms relaxed",
         "sways a little while standing in one place", "keeps both feet on the ground and barely moves"),
    ),
    "walk": (
        ("walk", "stroll", "take a walk", "walk forward", "step forward", "amble", "go for a walk", "pace",
         "wander", "walk along", "saunter", "mosey", "walk ahead", "walk across", "go on foot",
         "take a stroll", "walk briskly", "walk casually", "head forward", "walk straight ahead", "meander",
         "promenade", "walk down the street", "trudge", "make its way forward", "plod along", "walk over",
         "head off on foot"),
        ("puts one foot in front of the other", "steps forward with its arms swinging at its sides",
         "moves forward at a steady walking pace", "covers ground one step at a time",
         "travels forward with an easy, even stride",
         "swings its arms while its legs carry its body forward",
         "keeps one foot on the ground while the other swings forward"),
    ),
    "jog": (
        ("jog", "go for a jog", "trot", "jog along", "run at an easy pace", "go jogging", "jog forward",
         "run slowly", "do a light jog", "jog lightly", "take a jog", "lope", "run gently",
         "go for a light run", "jog at a steady pace", "jog in a straight line", "jog ahead",
         "run at a relaxed pace", "do some jogging"),
        ("runs at a gentle pace with its elbows bent",
         "bounces lightly from foot to foot while moving forward", "moves forward in a relaxed, springy run",
         "takes short running strides without hurrying",
         "runs easily, barely leaving the ground between steps"),
    ),
    "run": (
        ("run", "run forward", "go for a run", "dash", "hurry", "rush", "run along", "run ahead",
         "take off running", "break into a run", "run quickly", "run fast", "hurry forward", "scurry",
         "scamper", "hustle", "charge forward", "race ahead", "run across", "run off", "run like the wind",
         "make a run for it", "rush forward", "hurry along"),
        ("moves forward fast with both feet leaving the ground",
         "pumps its arms while running quickly forward", "covers ground with long running strides",
         "kicks its heels up high behind while moving fast", "pushes off the ground hard with each stride",
         "runs with its elbows bent at right angles"),
    ),
    "sprint": (
        ("sprint", "run as fast as possible", "race", "run at full speed", "bolt", "dash flat out",
         "sprint forward", "run flat out", "run at top speed", "go all out", "sprint ahead",
         "tear down the track", "race forward", "run for its life", "zoom ahead", "put on a burst of speed",
         "speed away", "make a mad dash", "run full tilt", "sprint like an athlete", "book it",
         "sprint to the finish"),
        ("leans far forward and drives its arms hard", "runs with all its might in a forward lean",
         "takes very fast, powerful strides with its knees driving high",
         "accelerates into a flat-out run, arms pumping", "pounds forward at top speed"),
    ),
    "walk_backward": (
        ("walk backward", "walk backwards", "step back", "back up", "move backward", "retreat",
         "walk in reverse", "back away", "step backward", "take a few steps back", "move back", "back off",
         "shuffle backward", "reverse", "walk back", "step backwards", "go backward", "edge backward",
         "back away slowly", "retreat step by step"),
        ("steps backward while still facing forward",
         "moves backward, one careful step at a time, without turning round",
         "puts one foot behind the other and travels backward",
         "keeps facing ahead while walking the other way",
         "reaches back with each foot and moves in reverse"),
    ),
    "sidestep": (
        ("sidestep", "step sideways", "step to the side", "shuffle sideways", "move sideways",
         "walk sideways", "take side steps", "slide to the side", "sidle", "shuffle to the side",
         "step aside", "move to the side", "shift sideways", "side-step", "do a side shuffle",
         "scoot sideways", "move laterally", "step out to the side", "sidle along"),
        ("steps out to one side and brings the other foot in after it",
         "moves along to the side without turning", "travels sideways, feet opening and closing",
         "keeps facing forward while moving across", "leads with one foot and closes the other to it"),
    ),
    "tiptoe": (
        ("tiptoe", "walk on tiptoe", "walk on its toes", "sneak on tiptoe", "tiptoe quietly",
         "creep on tiptoe", "walk on the balls of its feet", "sneak", "tread softly", "tiptoe along",
         "creep", "sneak around", "sneak forward", "creep forward", "tiptoe forward", "walk quietly",
         "walk stealthily", "prowl", "move stealthily", "sneak up", "walk silently", "steal forward",
         "tiptoe past", "pussyfoot"),
        ("walks with its heels raised off the ground", "takes small, careful steps on the front of its feet",
         "moves forward quietly, hunched, with soft knees",
         "sets each foot down gently so as not to make a sound", "creeps forward in small, light steps"),
    ),
    "march": (
        ("march", "march like a soldier", "march in step", "march with high knees", "parade",
         "do a military march", "stomp in a march", "march forward", "march in place", "march along",
         "march on the spot", "march proudly", "march in formation", "strut like a soldier", "troop along",
         "march in a parade", "step in time", "keep in step", "drill like a soldier"),
        ("lifts its knees high in front with each step", "swings its straight arms high while stepping",
         "steps with an upright chest and a steady rhythm",
         "raises each thigh level before putting the foot down",
         "walks stiffly and rhythmically with its knees coming up high"),
    ),
    "limp": (
        ("limp", "walk with a limp", "hobble", "limp along", "walk lamely", "hobble along",
         "walk as if hurt", "limp forward", "walk with an injured leg", "favor one leg", "drag a leg",
         "walk unevenly", "stagger along injured", "hobble forward", "walk with a bad leg", "limp slowly",
         "walk painfully", "shuffle along in pain", "nurse a sore leg", "walk with a sprained ankle",
         "hop along on a bad leg"),
        ("puts little weight on one leg and leans on the other",
         "walks unevenly, dipping on every other step", "takes a quick, short step on its sore leg",
         "moves forward slowly, wincing with each step", "walks with a lopsided rhythm, one leg stiff"),
    ),
    "skip": (
        ("skip", "skip along", "skip forward", "go skipping", "skip like a child", "skip merrily",
         "prance along", "do a skipping step", "skip down the road", "skip happily", "skip around", "frolic",
         "skip cheerfully", "skip ahead", "bounce along", "trip along happily", "skip joyfully",
         "skip down the path", "gambol"),
        ("steps and hops on alternate feet while moving forward",
         "drives its free knee up high with each bouncy step",
         "moves forward with a step-hop, step-hop rhythm", "bounces forward, swinging the opposite arm up",
         "travels with light little hops from one foot to the other"),
    ),
    "crawl": (
        ("crawl", "crawl on hands and knees", "crawl on all fours", "crawl forward", "crawl like a baby",
         "creep on hands and knees", "go on all fours", "crawl along", "crawl across the floor",
         "move on hands and knees", "crawl slowly", "crawl around", "crawl on the ground",
         "crawl like a toddler", "scuttle on all fours", "creep along the floor", "crawl under something",
         "move like a baby"),
        ("moves forward on its hands and knees", "kneels, puts its hands on the floor and travels forward",
         "shuffles forward with its hands and knees touching the ground",
         "moves its opposite hand and knee together along the floor",
         "lowers itself to the floor and moves along with its belly above the ground"),
    ),
    "climb": (
        ("climb", "climb a ladder", "climb up", "climb up a ladder", "go up a ladder", "scale a ladder",
         "clamber up", "ascend a ladder", "climb upward", "climb a wall", "climb a rope", "climb stairs",
         "scale a wall", "climb a tree", "clamber", "climb up a wall", "scramble up", "climb hand over hand",
         "ascend", "work its way up a ladder", "mount a ladder", "shin up a pole", "climb up the rungs"),
        ("reaches up, grabs a rung and pulls itself higher",
         "puts one foot on a higher step, then the other",
         "pulls itself upward with its hands above its head", "goes up step by step, hand over hand",
         "raises a knee high and pushes its body up"),
    ),
    "swim": (
        ("swim", "swim forward", "take a swim", "go for a swim", "swim along", "paddle", "swim across",
         "do swimming strokes", "swim a lap", "do the front crawl", "do the breaststroke", "swim laps",
         "swim freestyle", "do the backstroke", "swim like a fish", "glide through the water",
         "do a few strokes", "stroke through the water", "take a dip"),
        ("lies flat and pulls its arms through the water in turn", "kicks its legs and windmills its arms",
         "glides forward horizontally, arms reaching ahead", "pushes off and strokes forward with both arms",
         "moves through the water with sweeping arm strokes"),
    ),
    "jump": (
        ("jump", "jump up", "jump in place", "spring up", "jump straight up", "bounce up", "jump high",
         "do a vertical jump", "jump into the air", "jump up and down", "spring into the air",
         "bound upward", "take a jump", "leap up", "leap into the air", "jump on the spot", "jump for joy",
         "vault upward", "pop up into the air", "jump as high as possible", "do a jump", "spring upward"),
        ("bends its knees and springs off the ground",
         "swings its arms up and leaves the ground with both feet",
         "crouches, then pushes off with both legs and flies up",
         "tucks its knees in the air and lands on the spot where the jump began",
         "pushes off the floor, rises and comes back down in the same spot",
         "gets both feet off the ground and lands softly"),
    ),
    "jump_forward": (
        ("jump forward", "do a long jump", "do a broad jump", "jump ahead", "leap forward", "jump across",
         "jump over a puddle", "jump over a gap", "do a standing long jump", "jump far",
         "jump as far as possible", "spring forward", "bound forward", "jump over something",
         "jump over a stream", "jump a long way", "launch forward", "make a long jump",
         "jump from one spot to another"),
        ("swings its arms back, then forward and flies forward",
         "crouches deep and springs forward with both feet",
         "pushes off with both legs and lands a good distance ahead",
         "reaches its legs forward in the air to land further on",
         "takes off from both feet and travels forward through the air"),
    ),
    "hop": (
        ("hop", "hop on one leg", "hop on one foot", "bounce on one leg", "hop along", "hop forward",
         "hop around", "hop on the spot", "do one-legged hops", "hop like a bunny", "hop in place",
         "hop on its left foot", "hop on its right foot", "hop repeatedly", "do a few hops",
         "hop up and down", "bound on one foot", "spring on one leg"),
        ("lifts one foot and bounces up and down on the other", "jumps again and again on a single leg",
         "holds one knee bent and springs off the other foot",
         "balances with arms out, bouncing on one foot",
         "keeps one foot off the floor and makes small jumps on the other"),
    ),
    "jumping_jacks": (
        ("do jumping jacks", "do star jumps", "do a jumping jack", "do side-straddle hops",
         "jump with arms and legs spread", "do jumping jack exercises", "do some jumping jacks",
         "do star jumps to warm up", "do a set of jumping jacks", "warm up with jumping jacks", "do jacks",
         "perform jumping jacks", "do a few star jumps", "do cardio jumps", "exercise with jumping jacks"),
        ("jumps its feet apart while clapping its hands overhead, then back together",
         "spreads its arms and legs wide in the air, then closes them",
         "hops feet wide with its arms up, then feet together with its arms down",
         "opens and closes its arms and legs in time with little jumps"),
    ),
    "leap": (
        ("leap", "take a big leap", "bound", "leap over something", "make a running leap", "do a split leap",
         "leap through the air", "leap like a dancer", "do a grand jete", "leap across", "do a big leap",
         "leap gracefully", "soar through the air", "leap over a hurdle", "take a flying leap",
         "leap like a deer", "spring forward in a leap"),
        ("pushes off its back leg and flies with its legs spread wide",
         "splits its legs front and back in mid air",
         "takes a long stride into the air and lands on its front foot",
         "springs from one foot, stretches out in the air and lands on the other"),
    ),
    "sit_down": (
        ("sit down", "take a seat", "sit", "have a seat", "lower itself to sit", "be seated",
         "sit on a chair", "sit on the floor", "sit on the ground", "settle into a chair", "seat itself",
         "park itself", "sit down on a bench", "take a load off", "settle down on a seat",
         "drop into a chair", "sink into a chair", "sit down to rest", "get seated", "perch on a stool",
         "grab a seat", "sit down cross-legged"),
        ("bends its knees and lowers its hips onto a seat",
         "lowers itself until its bottom rests on a chair",
         "pushes its hips back and settles down onto the ground", "goes from standing to seated",
         "folds its legs and comes to rest on its backside"),
    ),
    "stand_up": (
        ("stand up", "get up", "rise", "rise to its feet", "get to its feet", "get up from sitting",
         "stand up from a chair", "get up from the chair", "get out of the chair", "rise from its seat",
         "stand up from sitting", "leave its seat", "come to its feet", "spring to its feet",
         "rise from the chair", "stand up slowly", "get up from the bench", "stand up straight"),
        ("leans forward and pushes up from the seat until standing",
         "straightens its legs and rises from the chair", "goes from sitting to standing",
         "plants its feet and lifts its hips off the seat"),
    ),
    "kneel": (
        ("kneel", "kneel down", "kneel on the floor", "kneel on the ground", "get into a kneeling position",
         "go down to kneel", "bend down to kneel", "kneel in place", "get down on one knee",
         "go down on one knee", "drop to its knees", "get on its knees", "fall to its knees",
         "go down on its knees", "take a knee", "kneel on one knee", "kneel on both knees", "kneel to pray",
         "kneel before someone", "propose on one knee", "sink to its knees"),
        ("lowers one knee to the floor and keeps the other foot planted",
         "puts both knees on the ground and stays there", "bends down until its knees rest on the floor",
         "steps one leg back and sets that knee down"),
    ),
    "lie_down": (
        ("lie down", "lie on the floor", "lie down on the ground", "lay down", "lie flat", "lie down flat",
         "stretch out on the floor", "go to lie down", "lie down on the floor", "lie down to rest",
         "lie on its back", "lie on its stomach", "lie face down", "lie face up", "recline",
         "lie down to sleep", "stretch out flat", "lie down on its back", "lay itself down",
         "rest on the ground", "take a nap on the floor", "lie prone", "lie supine"),
        ("lowers itself until its back is on the floor", "ends up stretched out flat on the ground",
         "sits, then rolls back until lying flat",
         "goes down onto its hands and knees and then flat on its front",
         "gets its whole body down onto the floor and stays there"),
    ),
    "get_up": (
        ("get up", "get back up", "get to its feet", "rise to its feet", "pick itself up", "stand back up",
         "climb to its feet", "push itself up to standing", "come back up to standing",
         "get back on its feet", "get up off the floor", "get up off the ground", "rise from the floor",
         "get up from lying down", "stand up from the floor", "get up from the ground", "pull itself up",
         "haul itself up", "rise from the ground", "stand up again", "recover to standing",
         "scramble to its feet", "get up from its knees"),
        ("pushes itself off the floor and stands up", "goes from lying on the ground to standing",
         "rolls onto its hands and knees and rises to standing",
         "brings its feet under itself and straightens up from the floor"),
    ),
    "crouch": (
        ("crouch", "crouch down", "duck down", "hunker down", "get down low", "crouch low", "duck",
         "lower itself into a crouch", "drop into a crouch", "get into a crouch", "squat down low",
         "get low", "crouch to hide", "bend its knees low", "hunch down", "stoop low", "cower",
         "crouch behind something", "lower its body", "huddle down"),
        ("bends its knees deeply and rests its hands on them",
         "lowers its hips close to its heels and holds still", "makes itself small by bending down low",
         "sinks down on bent legs, then comes back up"),
    ),
    "squat": (
        ("do squats", "squat", "do a squat", "do some squats", "do bodyweight squats", "do knee bends",
         "squat up and down", "do deep knee bends", "squat repeatedly", "work out with squats",
         "do air squats", "do a set of squats", "exercise its legs", "do leg exercises", "train its legs",
         "do deep squats", "do squat reps", "perform squats"),
        ("pushes its hips back and down until its thighs are level, then stands up again",
         "bends and straightens its knees again and again with its arms out in front",
         "lowers itself and rises repeatedly, keeping its back straight",
         "sits back into an imaginary chair and rises, several times"),
    ),
    "push_up": (
        ("do push-ups", "do pushups", "do a push-up", "do press-ups", "do some push-ups",
         "work out with push-ups", "do pressups", "do a set of push-ups", "pump out push-ups", "do push ups",
         "perform push-ups", "exercise its arms on the floor", "do a plank and push-ups", "train its chest",
         "do floor presses"),
        ("lowers its chest to the floor and pushes back up with straight arms",
         "holds a plank and bends and straightens its arms",
         "gets down on its hands and pushes its body up and down",
         "keeps its body straight while pressing itself off the ground again and again"),
    ),
    "sit_up": (
        ("do sit-ups", "do situps", "do crunches", "do a sit-up", "do some sit-ups", "do ab crunches",
         "work its abs", "do abdominal crunches", "exercise its abs", "do sit ups", "train its core",
         "do core exercises", "do a set of crunches", "work on its six-pack", "perform sit-ups",
         "do stomach exercises", "strengthen its abs"),
        ("lies on its back with bent knees and curls its upper body up",
         "raises its torso off the floor and lowers it again",
         "curls up toward its knees and back down repeatedly",
         "lifts its shoulders off the ground over and over while lying down"),
    ),
    "stretch": (
        ("stretch", "stretch out", "do a stretch", "stretch its arms", "reach up high", "stretch its body",
         "limber up", "loosen up", "stretch its arms overhead", "have a good stretch", "warm up",
         "do some stretches", "reach for the sky", "stretch to the side", "stretch its back", "do yoga",
         "stretch after waking up", "do a side stretch", "stretch its muscles", "stretch upward",
         "do warm-up stretches"),
        ("reaches both arms overhead and rises onto its toes",
         "lifts its arms high and leans from side to side",
         "extends its whole body upward as far as possible",
         "raises its hands above its head and holds them there"),
    ),
    "bend_over": (
        ("bend over", "touch its toes", "bend down", "bend forward", "reach for its toes",
         "bend over to touch its toes", "fold forward", "bend at the waist", "stoop down",
         "bend down toward the floor", "lean over", "stoop", "bend down to pick something up",
         "bend over forward", "reach down to the ground", "pick something up off the floor",
         "touch the floor", "reach down", "double over", "hinge forward"),
        ("folds its upper body down toward its feet with straight legs",
         "reaches its hands down toward the floor and straightens again",
         "tips its torso forward from the hips until its head points at the ground",
         "lowers its head and hands toward its toes, then comes back up"),
    ),
    "lunge": (
        ("lunge", "do lunges", "lunge forward", "do a lunge", "step into a lunge", "do some lunges",
         "do forward lunges", "work out with lunges", "do walking lunges", "do alternating lunges",
         "perform lunges", "do a set of lunges", "exercise with lunges", "do split squats", "lunge deeply"),
        ("takes a long step forward and drops its back knee toward the floor",
         "steps out, bends both knees deeply and pushes back up",
         "lowers itself over its front leg, back knee nearly touching the ground",
         "alternates long, deep steps with its legs"),
    ),
    "wave": (
        ("wave", "wave hello", "wave goodbye", "wave its hand", "greet someone with a wave",
         "wave at someone", "say hi with a wave", "wave bye", "wave to a friend", "wave its arm",
         "wave back", "say hello", "say goodbye", "greet someone", "bid farewell", "give a wave",
         "wave cheerfully", "wave frantically", "flag someone down", "hail someone", "wave to the crowd",
         "say bye", "wave from afar"),
        ("raises one hand above its shoulder and swings it side to side",
         "lifts an arm and moves its open hand back and forth",
         "holds a hand up high and rocks it from side to side",
         "puts its hand up and waggles it a few times", "lifts its forearm and sways it left and right"),
    ),
    "clap": (
        ("clap", "clap its hands", "applaud", "clap its hands together", "give a round of applause",
         "put its hands together", "clap along", "give a big hand", "clap in applause",
         "clap enthusiastically", "clap loudly", "clap excitedly", "give a standing ovation", "clap slowly",
         "clap to the rhythm", "clap for someone", "applaud wildly", "clap happily"),
        ("brings its palms together in front of its chest again and again",
         "strikes its hands together repeatedly",
         "holds its hands up and smacks them together several times",
         "puts its hands together over and over to make noise"),
    ),
    "point": (
        ("point", "point at something", "point its finger", "point in a direction", "point somewhere",
         "point with its arm", "indicate a direction", "show the way", "gesture toward something",
         "point ahead", "point upward", "point at the sky", "point at the ground", "point to the left",
         "point to the right", "point something out", "direct someone", "aim its finger",
         "point into the distance", "point at someone"),
        ("raises one straight arm toward something and holds it there",
         "stretches an arm out and aims it at a spot",
         "extends its arm fully in one direction, then lowers it",
         "lifts a straight arm to show where to look"),
    ),
    "salute": (
        ("salute", "give a salute", "give a military salute", "salute like a soldier", "salute at attention",
         "raise its hand to its forehead in a salute", "salute someone", "snap a salute", "salute the flag",
         "salute an officer", "salute smartly", "give a sharp salute", "salute respectfully",
         "return a salute", "do a military salute"),
        ("stands straight and brings its right hand up to its brow",
         "touches its forehead with the edge of its hand and holds it",
         "snaps a hand to its brow while standing stiffly",
         "raises its right hand to the side of its head and then drops it"),
    ),
    "shrug": (
        ("shrug", "shrug its shoulders", "give a shrug", "shrug in confusion", "make a shrugging gesture",
         "raise its shoulders in a shrug", "turn up its palms in a shrug", "give a helpless shrug",
         "shrug with open hands", "shrug it off", "act confused", "show confusion", "look puzzled",
         "express confusion", "signal confusion", "shrug apologetically", "say who knows",
         "shrug indifferently", "look clueless"),
        ("lifts its shoulders and turns its palms up",
         "bends its elbows at its sides and opens its hands outward",
         "raises both shoulders and tilts its head as if to say i don't know",
         "holds its forearms out with the palms up for a moment"),
    ),
    "bow": (
        ("bow", "take a bow", "bow down", "make a bow", "give a bow", "bend forward in a bow",
         "bow to the audience", "bow respectfully", "bow at the waist", "bow politely", "bow deeply",
         "take a deep bow", "bow to someone", "bow its head", "make a polite bow", "bow after a performance",
         "curtsy", "take a curtain call", "show respect with a bow", "bow graciously"),
        ("bends forward from the hips with straight legs, holds it and straightens up",
         "lowers its head and upper body toward someone and rises again",
         "tips its torso down politely and comes back up",
         "folds forward at the waist for a moment, then stands tall"),
    ),
    "cheer": (
        ("cheer", "throw its arms up in the air", "raise both arms in a cheer", "give a cheer",
         "put its hands up in the air", "cheer with both arms raised", "cheer for its team",
         "raise its arms in victory", "shout hooray", "cheer loudly", "cheer on its team",
         "root for its team", "yell hooray", "cheer wildly", "raise the roof", "celebrate with arms up",
         "cheer happily", "shout for joy", "cheer excitedly"),
        ("throws both arms up in a v and shakes its fists",
         "lifts both hands high above its head in excitement",
         "raises its arms overhead and pumps them up and down",
         "reaches both fists toward the sky and hops a little"),
    ),
    "beckon": (
        ("beckon", "beckon someone over", "wave someone over", "motion for someone to come closer",
         "gesture for someone to come", "signal someone to come here", "beckon with its hand",
         "call someone over with its hand", "beckon someone closer", "motion someone over",
         "invite someone over", "signal come here", "summon someone with its hand", "gesture come here",
         "urge someone to follow", "beckon with a finger", "call someone closer", "motion to follow"),
        ("holds one arm out and curls its forearm back toward itself again and again",
         "reaches out and draws its hand in repeatedly", "extends a hand and makes a come-here motion",
         "waves its hand toward its own body several times"),
    ),
    "look_around": (
        ("look around", "glance around", "look about", "peer around", "survey the area",
         "check its surroundings", "turn its head to look around", "look all around",
         "search for something with its eyes", "look left and right", "scan the area", "look for something",
         "search around", "take a look around", "look over its shoulder", "keep a lookout",
         "watch its surroundings", "look curiously around", "search for someone", "gaze around",
         "check both ways", "peek around", "look into the distance"),
        ("turns its head and shoulders one way, then the other",
         "shades its eyes with a hand and looks from side to side",
         "twists its upper body to look behind and then ahead",
         "glances one way and then the other, shifting its weight"),
    ),
    "punch": (
        ("punch", "throw a punch", "throw punches", "box", "jab", "punch the air", "shadowbox",
         "hit with its fist", "strike with its fist", "throw a jab", "do some boxing", "spar",
         "throw a hook", "throw an uppercut", "punch a bag", "punch forward", "hit a punching bag", "fight",
         "throw a left hook", "throw a right cross", "swing its fists", "do a one-two combo",
         "practice boxing", "throw a haymaker", "sock someone"),
        ("stands with its fists up and snaps one arm straight out",
         "drives a fist forward and pulls it back to its chin",
         "strikes forward with one fist and then the other",
         "keeps its guard up and fires quick straight arm strikes"),
    ),
    "kick": (
        ("kick", "do a front kick", "kick forward", "throw a kick", "kick the air", "do a karate kick",
         "kick out", "do a martial arts kick", "snap a kick", "kick high", "do a high kick", "kick someone",
         "kick its leg out", "do a taekwondo kick", "kick like a ninja", "kick at something",
         "do a kung fu kick", "deliver a kick", "boot something", "kick in the air"),
        ("lifts its knee and snaps its foot out straight in front",
         "swings one leg up forward with its fists raised",
         "raises its bent knee and extends the leg sharply",
         "drives a foot forward at waist height and pulls it back"),
    ),
    "block": (
        ("block", "block a punch", "put up its guard", "raise its guard", "guard its face",
         "shield its face", "defend itself", "cover up", "block a blow", "protect its head", "parry",
         "fend off an attack", "block an attack", "shield itself", "ward off a blow",
         "raise its arms to block", "guard itself", "defend against a punch", "block a kick",
         "take a defensive stance"),
        ("holds its forearms up in front of its face and braces",
         "crosses its arms over its head and flinches",
         "bends its knees and raises both arms to protect its head", "pulls its forearms up like a shield"),
    ),
    "dodge": (
        ("dodge", "duck", "dodge a punch", "evade", "dodge out of the way", "get out of the way",
         "avoid a punch", "duck out of the way", "lean away", "swerve", "evade an attack", "dodge a ball",
         "sidestep a punch", "duck a punch", "dodge an attack", "weave", "slip a punch",
         "jump out of the way", "avoid getting hit", "lean back to dodge", "duck under something"),
        ("ducks its head and upper body quickly and then comes back up",
         "leans sharply away and returns to standing", "snaps its body to one side to avoid something",
         "drops its head down fast and pops back up"),
    ),
    "throw": (
        ("throw", "throw a ball", "throw overhand", "pitch a ball", "toss a ball", "hurl a ball",
         "throw something", "make a throw", "throw a baseball", "fling a ball", "throw a stone",
         "throw a rock", "pitch", "toss something", "hurl something", "lob a ball", "throw a javelin",
         "throw far", "chuck a ball", "throw a frisbee", "throw a dart", "sling a stone", "throw a football",
         "pass the ball"),
        ("cocks one arm back, steps forward and whips the arm over the top",
         "brings its hand back behind its head and snaps it forward to release",
         "steps toward a target and flings its arm forward",
         "winds up and hurls its arm forward over its shoulder"),
    ),
    "catch": (
        ("catch", "catch a ball", "make a catch", "catch something", "catch a throw", "receive a pass",
         "grab a ball out of the air", "catch a pass", "catch a baseball", "catch a frisbee",
         "catch a football", "snag a ball", "field a ball", "receive a ball", "grab something thrown to it",
         "catch with both hands", "intercept a pass", "trap a ball"),
        ("reaches both hands up and forward, then pulls them into its chest",
         "holds its hands out ready and draws them in as something arrives",
         "stretches its arms toward an incoming object and cradles it to its chest"),
    ),
    "swing_bat": (
        ("swing a bat", "swing a baseball bat", "bat", "take a swing", "hit a baseball", "play baseball",
         "swing at a pitch", "hit a home run", "swing for the fences", "take a swing with a bat",
         "hit a ball with a bat", "take batting practice", "smack a baseball", "swing at the ball",
         "play cricket", "hit a cricket ball", "bat at the plate", "swing hard with a bat"),
        ("stands wide with both hands by its back shoulder and swings them level across its body",
         "strides forward and whips its clasped hands around at waist height",
         "holds its hands up by one shoulder, then sweeps them through in a flat arc"),
    ),
    "golf_swing": (
        ("swing a golf club", "play golf", "hit a golf ball", "take a golf swing", "tee off", "golf",
         "drive a golf ball", "do a golf swing", "practice its golf swing", "hit a drive", "putt",
         "chip a golf ball", "swing a driver", "practice golf", "hit the golf ball down the fairway",
         "play a round of golf", "hit a tee shot"),
        ("bends slightly with its hands together low, swings them back and then through and up",
         "takes its clasped hands slowly back over one shoulder and swings fast down and through",
         "addresses an imaginary ball and swings its arms in a big arc"),
    ),
    "shoot_basketball": (
        ("shoot a basketball", "shoot hoops", "take a jump shot", "shoot a hoop", "shoot the ball",
         "take a shot at the basket", "shoot a free throw", "throw a basketball at the hoop",
         "make a basket", "shoot a three-pointer", "shoot for the basket", "dunk", "do a layup",
         "score a basket", "sink a shot", "take a basketball shot", "shoot a jumper", "shoot a lay-up",
         "toss the ball into the hoop"),
        ("gathers a ball at its chest, jumps and extends both arms up and forward",
         "lifts both hands above its head and flicks its wrists toward a high target",
         "bends its knees and pushes both arms up toward a hoop",
         "rises up and releases the ball from above its forehead"),
    ),
    "dribble": (
        ("dribble a basketball", "dribble", "dribble a ball", "bounce a basketball", "bounce a ball",
         "dribble the ball", "play basketball", "practice dribbling", "dribble a basketball around",
         "dribble in place", "dribble down the court", "bounce the ball", "dribble with one hand",
         "handle the ball", "dribble around", "work on ball handling"),
        ("bends its knees and pumps one hand up and down at waist height",
         "pats the ball down to the floor again and again with one hand",
         "leans forward with one hand bouncing an imaginary ball beside it"),
    ),
    "kick_ball": (
        ("kick a ball", "kick a soccer ball", "kick the ball", "kick a football", "shoot a soccer ball",
         "take a penalty kick", "boot a ball", "play soccer", "strike a ball", "take a shot at goal",
         "punt a ball", "play football", "score a goal", "take a free kick", "pass a soccer ball",
         "kick the ball into the net", "shoot at the goal", "kick a ball hard", "take a corner kick",
         "volley a ball"),
        ("runs up a step, plants one foot and swings the other leg through",
         "takes a short approach and sweeps its kicking leg forward hard",
         "plants beside an imaginary ball and follows through with its leg high"),
    ),
    "dance": (
        ("dance", "do a little dance", "dance to the music", "groove to the music", "bust a move",
         "show off its dance moves", "move to the beat", "party", "dance around", "boogie", "dance happily",
         "dance wildly", "do a happy dance", "dance like nobody is watching",
         "break into a dance", "shake its body", "sway to the music", "hit the dance floor",
         "jam to the music", "do a dance routine", "strut its stuff", "get its groove on"),
        ("bounces to a beat with its arms moving freely",
         "steps from side to side in rhythm, swaying its hips",
         "moves its body rhythmically, pointing up and down",
         "grooves on the spot with its hands in the air", "steps and touches in time with an imagined song"),
    ),
    "spin": (
        ("spin", "spin around", "turn around", "twirl", "pirouette", "spin in place", "whirl around",
         "turn in a circle", "do a spin", "spin on the spot", "rotate in place", "twirl around",
         "spin in circles", "do a pirouette", "make a full turn", "spin like a top", "whirl",
         "turn on its heel", "do a twirl", "spin on its toes", "turn round and round"),
        ("rises onto the balls of its feet and turns all the way around",
         "rotates on the spot with its arms raised", "turns around in place once or twice",
         "goes round in a circle without moving from its spot"),
    ),
    "celebrate": (
        ("celebrate", "celebrate a victory", "celebrate a win", "rejoice", "celebrate a goal",
         "do a victory celebration", "celebrate wildly", "go wild with joy", "celebrate a success",
         "do a victory dance", "pump its fist", "throw a fist pump", "celebrate happily", "jump with joy",
         "be overjoyed", "party after winning", "revel in victory", "do a celebration dance", "exult",
         "whoop with joy", "go crazy with excitement"),
        ("pumps its fists and jumps with its arms up", "punches the air again and again, grinning",
         "leaps with joy, then windmills its arms",
         "bursts into a series of excited fist pumps and a little jump"),
    ),
    "fall_down": (
        ("fall down", "fall over", "fall", "collapse", "fall to the ground", "topple over", "tumble down",
         "drop to the floor", "keel over", "take a fall", "faint", "pass out", "fall flat", "fall backward",
         "fall forward", "fall on its face", "crumple to the ground", "slump to the floor", "tumble over",
         "fall flat on its back", "go down hard", "hit the ground", "flop to the floor",
         "crash to the ground"),
        ("loses its footing and ends up lying on the floor",
         "buckles at the knees, catches itself with its hands and goes flat",
         "tips over and lands on the ground", "goes from standing to lying on the floor in a moment"),
    ),
    "stumble": (
        ("stumble", "trip", "stumble forward", "trip over something", "lose its footing", "stagger",
         "trip up", "trip over its own feet", "stumble over something", "lose its balance", "totter",
         "teeter", "wobble", "lurch forward", "stagger forward", "slip", "misstep", "catch its foot",
         "trip on a rock", "reel", "stumble drunkenly"),
        ("catches a foot mid-step, pitches forward and rescues itself with a quick step",
         "flings its arms out, losing its balance and then regaining it",
         "lurches forward off balance and stops itself from falling",
         "jerks forward on a snagged foot and steadies itself"),
    ),
    "balance": (
        ("balance on one leg", "stand on one leg", "balance", "stand on one foot", "balance on one foot",
         "keep its balance", "hold a one-legged pose", "stand like a flamingo", "balance with arms out",
         "do a tree pose", "balance carefully", "hold its balance", "steady itself on one leg",
         "balance on a beam", "walk a tightrope", "try to keep its balance", "hold a yoga pose",
         "stay balanced", "pose on one leg"),
        ("lifts one foot off the ground and holds still with its arms spread",
         "shifts its weight onto one leg and raises the other knee",
         "wobbles on one foot with its arms out to the sides",
         "stands on a single leg, steadying itself with its arms"),
    ),
    "push": (
        ("push", "push something heavy", "push a heavy object", "push a box", "shove something",
         "push a car", "push a heavy cart", "push hard against something", "lean into a heavy load",
         "push with all its strength", "shove", "push a wall", "push a stroller", "push a shopping cart",
         "push a wheelbarrow", "push a door open", "push a crate", "press against something",
         "force something forward", "push forward", "push a sled", "shove a heavy box",
         "heave something forward"),
        ("leans forward with both arms straight out and drives with its legs",
         "puts its hands on something in front and strains forward",
         "walks slowly forward, leaning its weight into its arms",
         "braces its back leg and presses forward with both hands"),
    ),
    "pull": (
        ("pull", "pull a rope", "haul a rope", "play tug of war", "pull something heavy", "tug on a rope",
         "drag something heavy", "heave on a rope", "pull a rope hand over hand", "haul something in", "tug",
         "drag", "pull hard", "pull a sled", "pull a cart", "tow something", "yank a rope",
         "reel something in", "pull something toward itself", "haul", "drag a heavy bag", "pull on a rope"),
        ("leans back and draws its hands in toward its body, one over the other",
         "grips something in front and hauls it in while stepping backward",
         "braces its feet and heaves backward with both arms", "tugs repeatedly, leaning its weight back"),
    ),
    "lift": (
        ("lift", "lift a heavy box", "pick up a box", "lift something heavy", "lift a box",
         "hoist a heavy box", "pick up something heavy", "lift a weight", "raise a heavy box",
         "lift a crate", "lift weights", "do a deadlift", "lift a barbell", "carry a heavy box",
         "pick up a package", "hoist something", "lift something off the ground", "lift a heavy bag",
         "pick up a heavy load", "lift a sack", "raise a weight overhead", "press a weight overhead",
         "pick up a crate"),
        ("squats, grips something at its feet and stands up holding it at its chest",
         "bends its knees, grabs a load and straightens up with it",
         "raises a heavy object from the floor to its chest and sets it down",
         "lifts something up over its head with both arms and lowers it"),
    ),
}  # fmt: skip


def words(action: str) -> tuple[str, ...]:
    """The verb phrases that name `action` (an action name), the most common first."""
    return VOCABULARY[action][0]


def descriptions(action: str) -> tuple[str, ...]:
    """Third-person verb phrases that describe what the body does in `action`, without naming it."""
    return VOCABULARY[action][1]
