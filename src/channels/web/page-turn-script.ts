/**
 * The web chat page's view of the bot's turn, as browser JavaScript source (inlined into the page
 * before {@link pageScript}). A turn runs from the first `typing` event (renewed every few seconds
 * while it works) to `typing-stop` (it answered, stopped or failed); a new connection starts
 * from "nothing runs", and the next renewal says otherwise. While a turn runs the Stop button
 * shows; the typing indicator shows too, except while the turn waits for the person to answer an
 * approval card: then it is the person's move, not the bot's. No timer guesses at the end.
 *
 * Same rules as the page's other sources: no backticks, no `${`.
 */
export const turnStateScript = String.raw`
const typingIndicator = document.getElementById('typing');
const stopButton = document.getElementById('stop');
const turn = { working: false, waitingOn: undefined };

function showTurn() {
  keepAtBottom(() => {
    typingIndicator.hidden = !turn.working || turn.waitingOn !== undefined;
    stopButton.hidden = !turn.working;
  });
}

/** A turn runs (true) or ended (false). */
function setWorking(working) {
  turn.working = working;
  if (!working) {
    turn.waitingOn = undefined;
    stopButton.disabled = false;
  }
  showTurn();
}

/** The turn waits for the person's answer to this approval card. */
function waitOn(card) {
  turn.waitingOn = card;
  showTurn();
}

/** The card was answered (here, in another tab, or by a command); without a card: whatever waited. */
function answered(card) {
  if (card !== undefined && turn.waitingOn !== card) return;
  turn.waitingOn = undefined;
  showTurn();
}

// The Stop button is the browser's own /stop: the server hands it to the gateway as that command.
// It stays disabled until the turn ends; a press that did not arrive can be tried again.
stopButton.addEventListener('click', async () => {
  stopButton.disabled = true;
  try {
    await postJson('/stop', { clientId, id: randomId(8) });
  } catch (error) {
    stopButton.disabled = false;
    showNotice('Stop did not arrive: ' + error.message);
  }
});
`;
