// The rater's trial: familiarization videos then the test video, one after another; the slider
// unlocks only when the test video has played to its end.
"use strict";

const box = document.getElementById("player");
const sources = JSON.parse(box.dataset.sources);
const video = box.querySelector("video");
const caption = document.getElementById("caption");
const play = document.getElementById("play");
const slider = document.getElementById("rating");
const submit = document.getElementById("submit");
const output = document.getElementById("value");
let index = 0;

function show(k) {
  index = k;
  video.src = sources[k].src;
  caption.textContent = sources[k].label;
}
video.addEventListener("ended", () => {
  if (index + 1 < sources.length) { show(index + 1); video.play().catch(() => {}); return; }
  slider.disabled = false;
  submit.disabled = false;
  document.getElementById("hint").textContent = "Move the slider, then submit.";
  play.textContent = "Watch again";
  play.disabled = false;
});
play.addEventListener("click", () => {
  if (index === sources.length - 1 && video.ended) show(0);
  play.disabled = true;
  video.play().catch(() => { play.disabled = false; });
});
slider.addEventListener("input", () => { output.textContent = slider.value; });
document.getElementById("rate").addEventListener("submit", () => { submit.disabled = true; });
show(0);
