// Package action holds the scripts of the repository's GitHub Action
// (action.yml at the repository root runs action/*.sh) and their tests:
// the tests run the action's steps with bash, as a runner does, against a
// local stand-in of the GitHub REST API and of the release downloads.
package action
