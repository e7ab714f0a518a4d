// stickgen studio: the form posts to /api/generate; the answer's GIF is shown and kept in a history.
// Plain JavaScript, no build step, nothing from elsewhere. Text from the server or the user is only
// ever put on the page as text (textContent), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const FORMAT_LABELS = { gif: "GIF", png: "PNG strip", mp4: "MP4", json: "JSON", npz: "NPZ", bvh: "BVH" };
const made = []; // this page's results, newest first

function option(value, label) {
  const element = document.createElement("option");
  element.value = value;
  element.textContent = label;
  return element;
}

async function setUp() {
  try {
    const [options, health] = await Promise.all([getJSON("/api/options"), getJSON("/api/health")]);
    $("model").textContent = `model ${health.model} on ${health.device}`;
    for (const text of options.examples) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = text;
      button.addEventListener("click", () => {
        $("prompt").value = text;
        $("form").requestSubmit();
      });
      $("examples").append(button);
    }
    for (const name of options.environments) $("environment").append(option(name, name.replace("_", " ")));
    for (const name of options.cameras) $("camera").append(option(name, name));
    for (const name of options.themes) $("theme").append(option(name, name));
    for (const name of options.parts) $("part").append(option(name, name.replace("_", " ")));
    $("guidance").value = options.defaults.guidance;
    $("steps").value = options.defaults.steps;
    $("theme").value = options.defaults.theme;
  } catch (error) {
    showError(error.message);
  }
}

async function getJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(await problem(response));
  return response.json();
}

async function problem(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
  } catch (_) {
    // not JSON: fall through to the status line
  }
  return `The studio answered ${response.status} ${response.statusText}.`;
}

// The request body. A seed is spliced in as its digits, so that seeds above 2**53 (which a JavaScript
// number would round) reach the server exactly.
function requestBody() {
  const fields = { text: $("prompt").value, n: Number($("n").value), theme: $("theme").value };
  const number = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
  if (number("seconds") !== null) fields.seconds = number("seconds");
  if (number("guidance") !== null) fields.guidance = number("guidance");
  if (number("steps") !== null) fields.steps = number("steps");
  for (const id of ["environment", "camera", "actions"]) {
    if ($(id).value.trim() !== "") fields[id] = $(id).value.trim();
  }
  const seed = $("seed").value.trim();
  if ($("random-seed").checked) {
    fields.seed = null;
  } else if (/^-?\d+$/.test(seed)) {
    const digits = seed.replace(/^(-?)0+(?=\d)/, "$1");
    return withSeed(fields, digits);
  } else {
    fields.seed = seed === "" ? 0 : seed; // the server says why a non-number is refused
  }
  return JSON.stringify(fields);
}

// A body with the seed spliced in as its digits (a seed the server answered, or one already sent).
function withSeed(fields, digits) {
  return JSON.stringify({ seed: "__SEED__", ...fields }).replace('"__SEED__"', digits);
}

// The seed, guidance, steps and theme of the form, for a change or a story.
function changeBody(fields) {
  const all = JSON.parse(requestBody().replace(/"seed":(-?\d+)/, '"seed":"$1"'));
  const body = { ...fields, theme: all.theme };
  for (const key of ["guidance", "steps"]) if (key in all) body[key] = all[key];
  const json = JSON.stringify({ seed: "__SEED__", ...body });
  if (all.seed === null) return json.replace('"__SEED__"', "null");
  return json.replace('"__SEED__"', /^-?\d+$/.test(String(all.seed)) ? String(all.seed) : JSON.stringify(all.seed));
}

function generate(event) {
  event.preventDefault();
  return run("/api/generate", requestBody(), $("generate"), null, { made: "generate" });
}

function changeCurrent(kind) {
  const current = $("result").result;
  const number = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
  const fields = { id: current.id, text: $("change-text").value };
  if (current.n > 1) fields.sample = Number($("change-sample").value);
  if ($("change-actions").value.trim() !== "") fields.actions = $("change-actions").value.trim();
  if (kind === "continue") {
    if (number("change-seconds") !== null) fields.seconds = number("change-seconds");
    return run("/api/continue", changeBody(fields), $("continue"));
  }
  fields.part = $("part").value;
  if (number("from") !== null) fields.from = number("from");
  if (number("to") !== null) fields.to = number("to");
  return run("/api/edit", changeBody(fields), $("edit-part"));
}

// seedText: the seed as sent, when the form's seed field did not give it; extra: kept on the result
// (a story's text, so that a line's close call can be put right in it).
async function run(url, body, button, seedText = null, extra = {}) {
  button.disabled = true;
  $("error").hidden = true;
  $("status").textContent = "Generating…";
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body,
    });
    if (!response.ok) throw new Error(await problem(response));
    const result = await response.json();
    result.seedText = seedText ?? ($("random-seed").checked ? String(result.seed) : $("seed").value.trim() || "0");
    result.elapsed = (performance.now() - started) / 1000;
    Object.assign(result, extra);
    made.unshift(result);
    show(result);
    $("status").textContent = `Made in ${result.elapsed.toFixed(2)} s.`;
  } catch (error) {
    $("status").textContent = "";
    const message = error instanceof TypeError
      ? "The studio did not answer; is stickgen serve still running?"
      : error.message;
    showError(message);
  } finally {
    button.disabled = false;
  }
}

function showError(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

function describe(result) {
  const parts = [`“${result.text}”`, `seed ${result.seedText}`, `${result.seconds.toFixed(1)} s`];
  if (result.n > 1) parts.push(`${result.n} samples`);
  if (result.environment !== "earth") parts.push(result.environment.replace("_", " "));
  if (result.warning) parts.push(`warning: ${result.warning}`);
  if (result.actions) parts.push(`actions ${result.actions}`);
  // a prompt whose words name no action is read by meaning: a guess, which the actions field can correct
  // (a story line's or continuation's reading names its segment; a line's own "| ACTIONS" corrects it)
  for (const read of result.read_as || []) {
    const close = closeNote(read);
    if (read.segment) {
      parts.push(`read segment ${read.segment} (“${read.text}”) as ${read.actions}${close}`);
      continue;
    }
    const which = result.read_as.length > 1 ? ` (sample ${read.samples.join(", ")})` : "";
    parts.push(`read as ${read.actions}${which}${close}`);
  }
  return parts.join(" · ");
}

// The close calls of a reading as `stickgen generate` says them: " (close: lie_down)", or, where the
// reading has several actions, which action each is about: " (close: stretch, shrug for stand_up)".
function closeNote(read) {
  if (!read.close || !read.close.length) return "";
  const parts = read.close_for || [];
  if (read.actions.split(",").length === 1 || !parts.length) return ` (close: ${read.close.join(", ")})`;
  return ` (close: ${parts.map((part) => `${part.close.join(", ")} for ${part.action}`).join("; ")})`;
}

// The timeline `actions` with the span of the `nth` of `parts` (a reading's close calls, in order) put
// to `other` instead: each part the first span of its action after the last one matched.
function replacedSpan(actions, parts, nth, other) {
  const spans = actions.split(",");
  let from = 0;
  for (let k = 0; k <= nth; k++) {
    const name = parts[k].action;
    while (from < spans.length && spans[from].split(":")[0] !== name) from++;
    if (from >= spans.length) return null;
    if (k === nth) {
      spans[from] = `${other}:${spans[from].split(":")[1]}`;
      return spans.join(",");
    }
    from++;
  }
  return null;
}

function downloadLinks(result) {
  const box = document.createElement("div");
  box.className = "downloads";
  const link = (format, url, label) => {
    const a = document.createElement("a");
    a.href = url;
    a.download = url.split("/").pop();
    a.dataset.format = format;
    a.textContent = label;
    box.append(a);
  };
  for (const [format, url] of Object.entries(result.files)) link(format, url, FORMAT_LABELS[format] || format);
  if (result.n > 1) {
    result.samples.forEach((sample, k) => {
      const label = document.createElement("span");
      label.className = "quiet";
      label.textContent = `#${k + 1}:`;
      box.append(label);
      for (const [format, url] of Object.entries(sample)) link(format, url, FORMAT_LABELS[format]);
    });
  }
  return box;
}

// A reading by meaning that was a close call: one button per action near it, which draws the same
// prompt (or story, that line ending in "| ACTIONS") with the same seed and that action instead; in a
// chained reading, in place of the action it is near ("Try stretch for stand up").
function fixes(result) {
  const box = document.createElement("div");
  box.className = "examples";
  for (const read of result.read_as || []) {
    if (!read.close || !read.close.length) continue;
    // a story's line, or a generated prompt; not a continuation's or an edit's reading (the form fixes those)
    if (read.segment ? !result.storyText : result.made !== "generate") continue;
    const chained = read.actions.split(",").length > 1;
    const parts = read.close_for && read.close_for.length
      ? read.close_for : [{ action: read.actions.split(":")[0], close: read.close }];
    parts.forEach((part, nth) => {
      for (const other of part.close) {
        const actions = chained ? replacedSpan(read.actions, parts, nth, other)
          : `${other}:${read.actions.split(":")[1]}`;
        if (!actions) continue;
        const button = document.createElement("button");
        button.type = "button";
        const name = other.replace("_", " ");
        const about = chained ? ` for ${part.action.replace("_", " ")}` : "";
        button.textContent = read.segment ? `Line ${read.segment}: try ${name}${about}`
          : chained ? `Try ${name}${about}` : `Try ${name} instead`;
        if (read.segment) {
          button.addEventListener("click", () => {
            const story = withActions(result.storyText, read.segment, chained ? actions : other);
            $("story").value = story;
            const fields = { story, steps: result.steps, guidance: result.guidance, theme: result.theme };
            run("/api/story", withSeed(fields, result.seedText), button, result.seedText, { storyText: story });
          });
        } else {
          button.addEventListener("click", () => {
            const fields = { text: result.text, n: result.n, seconds: result.seconds, actions,
                             steps: result.steps, guidance: result.guidance, theme: result.theme };
            if (result.camera) fields.camera = result.camera;
            run("/api/generate", withSeed(fields, result.seedText), button, result.seedText, { made: "generate" });
          });
        }
        box.append(button);
      }
    });
  }
  box.id = "fixes";
  box.hidden = !box.children.length;
  return box;
}

// The story with its segment-th line (counted as the server counts them: comments and blank lines
// skipped) ending in "| action" instead of any actions it had; a comment stays after it.
function withActions(story, segment, action) {
  let count = 0;
  return story.split("\n").map((line) => {
    const hash = line.indexOf("#");
    const body = hash < 0 ? line : line.slice(0, hash);
    if (!body.trim() || ++count !== segment) return line;
    const comment = hash < 0 ? "" : `  ${line.slice(hash)}`;
    return `${body.split("|")[0].trimEnd()} | ${action}${comment}`;
  }).join("\n");
}

function show(result) {
  $("result").hidden = false;
  $("result").result = result;
  $("animation").src = result.files.gif;
  $("animation").alt = `Stick figure: ${result.text}`;
  $("caption").textContent = describe(result);
  $("downloads").replaceWith(Object.assign(downloadLinks(result), { id: "downloads" }));
  $("fixes").replaceWith(fixes(result));
  const samples = Array.from({ length: result.n || 1 }, (_, k) => option(String(k + 1), `#${k + 1}`));
  $("change-sample").replaceChildren(...samples);
  $("change-sample-label").hidden = !(result.n > 1);
  renderHistory(result);
}

function renderHistory(current) {
  $("history-section").hidden = made.length < 2;
  const items = made.map((result) => {
    const item = document.createElement("li");
    if (result === current) item.className = "current";
    const image = document.createElement("img");
    image.src = result.files.gif;
    image.alt = result.text;
    image.loading = "lazy";
    image.title = "Show this one";
    image.addEventListener("click", () => show(result));
    image.addEventListener("error", () => {
      const note = document.createElement("p");
      note.className = "expired";
      note.textContent = "No longer kept by the server.";
      image.replaceWith(note);
    });
    const caption = document.createElement("p");
    caption.textContent = describe(result);
    item.append(image, caption, downloadLinks(result));
    return item;
  });
  $("history").replaceChildren(...items);
}

$("form").addEventListener("submit", generate);
$("continue").addEventListener("click", () => changeCurrent("continue"));
$("edit-part").addEventListener("click", () => changeCurrent("part"));
$("tell").addEventListener("click", () => {
  const story = $("story").value;
  run("/api/story", changeBody({ story }), $("tell"), null, { storyText: story });
});
$("random-seed").addEventListener("change", () => { $("seed").disabled = $("random-seed").checked; });
setUp();
