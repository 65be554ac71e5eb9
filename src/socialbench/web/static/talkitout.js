// TalkItOut replay: step through the frames; the utterance log follows.
"use strict";

const replay = document.getElementById("replay");
const count = Number(replay.dataset.frames);
const frame = document.getElementById("frame");
const range = document.getElementById("step");
const label = document.getElementById("stepno");
const toggle = document.getElementById("toggle");
const items = replay.querySelectorAll("ol.log li");
let step = 0;
let timer = null;

function go(k) {
  step = Math.max(0, Math.min(count - 1, k));
  frame.src = replay.dataset.base + step;
  range.value = step;
  label.textContent = "step " + step + " / " + (count - 1);
  items.forEach((li, j) => li.classList.toggle("current", j === step));
  if (items[step]) items[step].scrollIntoView({ block: "nearest" });
}
document.getElementById("prev").addEventListener("click", () => go(step - 1));
document.getElementById("next").addEventListener("click", () => go(step + 1));
range.addEventListener("input", () => go(Number(range.value)));
toggle.addEventListener("click", () => {
  if (timer) { clearInterval(timer); timer = null; toggle.textContent = "play"; return; }
  if (step === count - 1) go(0);
  toggle.textContent = "pause";
  timer = setInterval(() => {
    if (step >= count - 1) { clearInterval(timer); timer = null; toggle.textContent = "play"; return; }
    go(step + 1);
  }, 400);
});
go(0);
